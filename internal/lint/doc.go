// Package lint holds the determinism lint: a test that parses the packages
// that make up the simulated world (sim, model, nodes, faults) and fails,
// naming file and line, on any construct that could make a run depend on
// anything but its seed (README, "The kernel").
//
// It reports go statements; channel types, sends, receives and select
// statements; imports, in any form (named, dot or blank), of packages that
// reach goroutines, the real clock, the real system or a global random
// source (sync, math/rand, crypto/rand, os, net, runtime, unsafe and the
// rest listed in rules.go); uses of the functions of package time that read
// or wait on the real clock; and uses of math/rand/v2's global source. Seeded
// *rand.Rand values, time.Duration and the other pure parts of time stay
// allowed: they are how the simulation draws randomness and keeps virtual
// time.
//
// It works on syntax alone (go/parser, go/ast), with its own tracking of local
// scopes so that a local variable named time is not mistaken for the
// package. Without types it cannot see a range over a channel whose type was
// spelled outside the checked folders; such a channel still has to be made or
// received somewhere, and that place is reported.
//
// There is deliberately no comment or flag to silence a finding: a
// construct that breaks replay breaks it whatever the reason it was written.
//
// It is test-only tooling and must never be imported by the simulation.
package lint
