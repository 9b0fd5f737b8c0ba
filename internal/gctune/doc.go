// Package gctune sets the Go garbage collector for simulation work, once,
// at the start of a kafkasim process (the command line and the scenario
// test harness).
//
// A simulation run allocates fast (messages, batches, history) while its
// live heap stays small, tens of megabytes. With Go's default GOGC=100 the
// collector then runs dozens of cycles a second, and each cycle's
// stop-the-world phases, worker wake-ups and preemption signals cost
// system time: a sweep of the chaos scenario spent about 40% of its CPU in
// the kernel. A larger heap goal trades memory, which a simulation has to
// spare, for far fewer cycles. The GOGC and GOMEMLIMIT environment
// variables still win: the tuning applies only what the user did not set.
package gctune
