// Package faults decides what goes wrong and when: the fault kinds, random
// swarm schedules drawn from the seed, scripted schedule files, the
// heal-then-converge liveness phase and schedule shrinking.
//
// Faults act on a run only through package sim's controls (crash, restart,
// partition, clog, skew). Like the kernel, this package must never start a
// goroutine, use channels or package sync, read the real clock, touch the
// file system or network, or draw randomness other than from the run's
// seeded streams.
//
// A run's faults are a Schedule: plain, printable Fault values, one line
// each of a schedule file. The pieces, one concern a file:
//
//	kinds.go      the fault kinds and what each takes
//	selectors.go  whom a fault hits: a node, or a role resolved when it fires
//	schedule.go   Fault, Schedule and their validation
//	parse.go      reading a schedule file, with file:line errors
//	format.go     writing one (Parse reads it back unchanged)
//	world.go      World, what faults act on
//	apply.go      Apply: arm a schedule on the kernel; the fault log
//	partitions.go the partition shapes (isolate, halves, bridge, ring, ...)
//	swarm.go      Swarm: draw a schedule from the seed
//	liveness.go   Heal and Converge: the liveness phase
//	shrink.go     Shrink: reduce a failing schedule
package faults
