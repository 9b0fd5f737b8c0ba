package model

import "strings"

// ApiVersionsRequest is the first request a Kafka client sends on a new
// connection (NetworkClient's handshake): until its answer arrives the
// connection is not ready, and if no answer comes within
// socket.connection.setup.timeout.ms the client gives the connection up.
// kafkasim negotiates nothing with it; it is how a client learns that a
// new connection reached the broker, since a partition drops packets
// without telling either end.
type ApiVersionsRequest struct {
	CorrelationID int32
}

// String reads "ApiVersions corr=1".
func (m ApiVersionsRequest) String() string {
	var b strings.Builder
	b.WriteString("ApiVersions")
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m ApiVersionsRequest) Digest() uint64 {
	return request(apiApiVersions).Int32(m.CorrelationID).Sum()
}

// ApiVersionsResponse answers the handshake: the connection is ready.
type ApiVersionsResponse struct {
	CorrelationID int32
}

// String reads "ApiVersionsResponse corr=1".
func (m ApiVersionsResponse) String() string {
	var b strings.Builder
	b.WriteString("ApiVersionsResponse")
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m ApiVersionsResponse) Digest() uint64 {
	return response(apiApiVersions).Int32(m.CorrelationID).Sum()
}
