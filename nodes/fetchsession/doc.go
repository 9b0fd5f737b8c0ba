// Package fetchsession is KIP-227's incremental fetch sessions, for both
// ends of a fetch: the broker's session cache and fetch contexts (Kafka's
// FetchSession.scala: FetchSessionCache, FetchManager.newContext and the
// FetchContext kinds) and the fetcher's session handler (Kafka's
// clients/FetchSessionHandler.java), which followers and consumers share
// as Kafka's ReplicaFetcherThread and consumer do.
//
// A fetcher's first fetch to a broker is a full fetch naming every
// partition; the broker answers it with a new session's id when its cache
// (max.incremental.fetch.session.cache.slots) has room or can evict. Later
// fetches in the session are incremental: they name only the partitions
// added or whose fetch offset (or other parameter) changed, and forget the
// ones dropped, and their answers carry only the partitions with records,
// a changed high watermark or log start offset, an error or a diverging
// epoch. Kafka's broker still reads every partition of the session for
// every fetch (IncrementalFetchContext.foreachPartition); kafkasim's reads
// only the partitions that may have something to answer: the cache keeps,
// for each session, the partitions changed since they were last read
// quiet (Cache.Changed, which the broker calls for every change to a
// partition, and Session.Dirty), so the answer is the same and the work
// follows what changed.
//
// The package is plain data: no clock, no randomness of its own (the
// broker passes the time and a source of session ids), and nothing that
// lets map order reach behaviour.
package fetchsession
