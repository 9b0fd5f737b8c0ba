package model

// connectionGoldenMessages pairs the connection handshake's messages with
// their descriptions.
func connectionGoldenMessages() []golden {
	return []golden{
		{ApiVersionsRequest{CorrelationID: 1}, "ApiVersions corr=1"},
		{ApiVersionsResponse{CorrelationID: 1}, "ApiVersionsResponse corr=1"},
	}
}
