package main

import (
	"os"
	"testing"
)

// TestMain points the run store at a temporary folder, so that tests that
// run or sweep without -out write nothing into the source tree.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kafkasim-store-")
	if err != nil {
		panic(err)
	}
	storeRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
