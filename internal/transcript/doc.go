// Package transcript drives the protocol transcript tests: small scripts
// in the style of etcd's raft testdata (its rafttest interaction
// environment), read with github.com/cockroachdb/datadriven, that step a
// few real nodes over the simulated network and print every message with
// its one-line String, so that a reader follows one protocol exchange
// message by message and the expected output is kept in the file.
//
// A test builds its world (a sim.Sim and its nodes, the real nodes of the
// package under test) and hands it to a Driver, which understands the
// steps every world has in common: running the clock (tick), delivering
// or dropping held messages (deliver, stabilize, drop), crashing and
// restarting nodes, cutting and healing links, and choosing which
// messages are printed (show). The test adds its own steps (propose,
// produce, status, ...) and the Driver runs the file. `go test -rewrite`
// writes the actual output back into the file.
//
// A node wrapped with Driver.Hold keeps every message it receives in a
// mailbox until a deliver step hands it over, as etcd's interaction
// environment does; every other node gets its messages when the network
// delivers them, and the Driver prints them as the kernel's recorded trace
// shows them. The package is test support: it is imported only by
// _test.go files, never by the simulated world, and like the world it
// starts no goroutine and reads no real clock.
package transcript
