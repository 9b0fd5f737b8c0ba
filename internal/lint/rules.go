package lint

import (
	"fmt"
	"strings"
)

// forbiddenImports maps a package path to why the simulation may not import
// it. Importing is forbidden outright (named, dot or blank) because even a
// blank import runs the package's init, and because once a package such as
// sync is in scope its uses are too many and too varied to police one by one.
var forbiddenImports = map[string]string{
	"sync":        "synchronisation primitives only matter between goroutines, and goroutine interleaving is decided by the Go scheduler, not the seed",
	"sync/atomic": "atomics only matter between goroutines, and goroutine interleaving is decided by the Go scheduler, not the seed",
	"math/rand":   "math/rand (v1) is built around a global, randomly seeded source; draw from a seeded *rand.Rand of math/rand/v2 handed out by sim",
	"crypto/rand": "crypto/rand reads the operating system's entropy, which no seed can replay",
	"os":          "os reaches the real file system, environment and process; use the simulated disk and the run's configuration",
	"os/exec":     "os/exec runs real processes",
	"os/signal":   "os/signal delivers real signals on a channel at real times",
	"net":         "net opens real sockets; use the simulated network",
	"net/http":    "net/http opens real sockets and starts goroutines; use the simulated network",
	"io/ioutil":   "io/ioutil reaches the real file system; use the simulated disk",
	"syscall":     "syscall talks to the real operating system",
	"unsafe":      "unsafe escapes the type system (and opens go:linkname into the runtime), so nothing else this lint checks could be trusted",
	"runtime":     "runtime exposes GOMAXPROCS, goroutines and the garbage collector, none of which a run may depend on",
	"plugin":      "plugin loads code this lint never saw",
	"C":           "cgo calls code this lint never saw",
	"context":     "context deadlines run on real timers and Done() is a channel; a node's timeouts are sim timers",
	"log":         "log stamps real wall-clock time on its output and writes to the real stderr; use env.Trace",
	"log/slog":    "slog stamps real wall-clock time and writes to real outputs; use env.Trace",
}

// forbiddenTrees are paths whose whole subtree is forbidden for the same
// reason as the root: os/user reads the real system like os does,
// runtime/debug tunes the real runtime like runtime does, and so on.
var forbiddenTrees = []string{"sync", "os", "runtime", "syscall", "net/http"}

// importReason returns why path may not be imported, or "" if it may.
func importReason(path string) string {
	if r, ok := forbiddenImports[path]; ok {
		return r
	}
	for _, root := range forbiddenTrees {
		if strings.HasPrefix(path, root+"/") {
			return fmt.Sprintf("%s is part of %s: %s", path, root, forbiddenImports[root])
		}
	}
	return ""
}

// Packages whose imports are allowed but some of whose names are not. Their
// uses are found by resolving selectors (t.Now) against the file's imports.
const (
	timePath  = "time"
	randV2    = "math/rand/v2"
	timeName  = "time" // the name time's package clause declares
	randV2Pkg = "rand" // the name math/rand/v2's package clause declares
)

// wallClock lists the functions of package time that read or wait on the real
// clock, with what each does. Everything else in time (Duration and its
// constants, Time values built from numbers, formatting) is pure and stays
// allowed: virtual time is a time.Duration.
var wallClock = map[string]string{
	"Now":       "reads the real clock",
	"Since":     "reads the real clock",
	"Until":     "reads the real clock",
	"Sleep":     "waits on the real clock",
	"After":     "delivers on a channel after real time passes",
	"AfterFunc": "runs a function on another goroutine after real time passes",
	"Tick":      "delivers on a channel as real time passes",
	"NewTimer":  "delivers on a channel after real time passes",
	"NewTicker": "delivers on a channel as real time passes",
}

// randV2Allowed lists the names of math/rand/v2 that do not touch its global
// source: the constructors of seeded generators and their types. It is an
// allow-list rather than a deny-list so that a global function added to
// math/rand/v2 in a later Go release is forbidden without anyone updating
// this file.
var randV2Allowed = map[string]bool{
	"New":        true,
	"NewPCG":     true,
	"NewChaCha8": true,
	"NewZipf":    true,
	"Rand":       true,
	"Source":     true,
	"PCG":        true,
	"ChaCha8":    true,
	"Zipf":       true,
}

// describeImported names pkg.sel as a reader knows it, and adds the local
// name when the file imports the package under another one, so that
// "t.Now" in the source is recognisable as time.Now in the report.
func describeImported(pkgName, local, sel string) string {
	s := pkgName + "." + sel
	if local != pkgName {
		s += fmt.Sprintf(" (imported as %s)", local)
	}
	return s
}
