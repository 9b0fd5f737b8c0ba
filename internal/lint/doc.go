// Package lint holds the determinism lint: a test that parses the packages
// that make up the simulated world (sim, model, nodes, faults) and fails,
// naming file and line, on any construct that could make a run depend on
// anything but its seed.
//
// It is test-only tooling and must never be imported by the simulation.
package lint
