package broker

import (
	"strconv"
	"strings"

	"kafkasim/model"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func brokerList(list []model.BrokerID) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range list {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.String())
	}
	b.WriteByte(']')
	return b.String()
}
