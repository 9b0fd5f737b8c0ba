// Package faults decides what goes wrong and when: the fault kinds, random
// swarm schedules drawn from the seed, scripted schedule files, the
// heal-then-converge liveness phase and schedule shrinking.
//
// Faults act on a run only through package sim's controls (crash, restart,
// partition, clog, skew). Like the kernel, this package must never start a
// goroutine, use channels or package sync, read the real clock, touch the
// file system or network, or draw randomness other than from the run's
// seeded streams.
package faults
