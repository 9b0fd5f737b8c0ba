// Package model is kafkasim's shared vocabulary: identifiers, offsets,
// epochs, records and batches, topic-partitions, every request and response
// message, Kafka's error codes, configuration under Kafka's own names and
// defaults, the client-observed history format, and the observations the
// nodes report and the checkers read (leaders, ISRs, high watermarks,
// group generations, committed offsets, quorum reports).
//
// It holds plain data and pure functions over it. It must never start a
// goroutine, use channels or package sync, read the real clock, touch the
// file system or network, or draw randomness; it imports the standard
// library only.
package model
