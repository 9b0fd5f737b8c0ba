package broker

import (
	"strconv"

	"kafkasim/model"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func brokerList(list []model.BrokerID) string { return model.ListString(list) }
