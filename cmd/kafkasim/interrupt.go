package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
)

// interruptible catches SIGINT (Ctrl-C) for the length of a sweep: the
// first one closes stop, so the sweep starts no new run, finishes the
// ones under way and writes the report of what finished (the command then
// exits 130, as a shell does for a process killed by SIGINT). stopped
// says whether it came; release restores the default, so a second Ctrl-C
// after the sweep, or one outside it, kills the process as usual.
func interruptible() (stop <-chan struct{}, stopped func() bool, release func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	ch := make(chan struct{})
	quit := make(chan struct{})
	var mu sync.Mutex
	got := false
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-sig:
			mu.Lock()
			got = true
			mu.Unlock()
			close(ch)
			// A second Ctrl-C while the running ones finish kills the
			// process at once, as without the handler.
			signal.Reset(os.Interrupt)
		case <-quit:
		}
	}()
	stopped = func() bool {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	release = func() {
		close(quit)
		wg.Wait()
		signal.Stop(sig)
	}
	return ch, stopped, release
}

// cleanUpOnInterrupt makes a Ctrl-C during a run leave nothing behind: a
// run cannot be stopped halfway (the simulation is one synchronous call),
// so the handler removes what the run had begun to write (clean) and exits
// 130 at once, as a shell expects of an interrupted command. release
// removes the handler; the caller defers it, so that the handler also
// covers the writing of the run's files up to their rename into place.
func cleanUpOnInterrupt(stderr io.Writer, clean func()) (release func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-sig:
			clean()
			fmt.Fprintln(stderr, "kafkasim run: interrupted; the run's unfinished files were removed")
			os.Exit(130)
		case <-quit:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(quit)
		wg.Wait()
	}
}
