package fetchsession

import "math"

// Session ids and epochs as Kafka's FetchMetadata defines them.
const (
	// InvalidSessionID is "no session": a fetch or answer outside one.
	InvalidSessionID int32 = 0
	// InitialEpoch asks for a full fetch, and for a new session.
	InitialEpoch int32 = 0
	// FinalEpoch asks for a full fetch without a session.
	FinalEpoch int32 = -1
)

// Metadata is a fetch's session id and epoch (Kafka's FetchMetadata).
type Metadata struct {
	SessionID int32
	Epoch     int32
}

// Initial is the metadata of a fetcher with no session: a full fetch that
// asks for one (FetchMetadata.INITIAL).
var Initial = Metadata{SessionID: InvalidSessionID, Epoch: InitialEpoch}

// IsFull reports whether the fetch names every partition it wants
// (FetchMetadata.isFull).
func (m Metadata) IsFull() bool { return m.Epoch == InitialEpoch || m.Epoch == FinalEpoch }

// IsFullEpoch reports whether a fetch with session epoch epoch is a full
// one (FetchMetadata.isFull).
func IsFullEpoch(epoch int32) bool { return Metadata{Epoch: epoch}.IsFull() }

// NextEpoch is the epoch after prev (FetchMetadata.nextEpoch): the final
// epoch stays final, and the epoch wraps from the largest int32 to 1.
func NextEpoch(prev int32) int32 {
	switch {
	case prev < 0:
		return FinalEpoch
	case prev == math.MaxInt32:
		return 1
	}
	return prev + 1
}

// nextCloseExisting is a full fetch that closes the session and asks for
// a new one (FetchMetadata.nextCloseExisting).
func (m Metadata) nextCloseExisting() Metadata {
	return Metadata{SessionID: m.SessionID, Epoch: InitialEpoch}
}

// newIncremental is the first incremental fetch of a session the broker
// just created (FetchMetadata.newIncremental).
func newIncremental(id int32) Metadata {
	return Metadata{SessionID: id, Epoch: NextEpoch(InitialEpoch)}
}

// nextIncremental is the session's next incremental fetch
// (FetchMetadata.nextIncremental).
func (m Metadata) nextIncremental() Metadata {
	return Metadata{SessionID: m.SessionID, Epoch: NextEpoch(m.Epoch)}
}
