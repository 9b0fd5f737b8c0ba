package main

import (
	"fmt"
	"os"
)

// checkOutFile refuses an -out file path that names anything but a
// regular file or nothing: writing through a temporary file renamed into
// place would otherwise replace a symbolic link, a FIFO or a device file
// (and fail on a directory only after the work was done). It is called
// before the work starts.
func checkOutFile(path string) error {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("-out %s: %v", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("-out %s: is a %s; name a regular file or a new one", path, describeMode(fi.Mode()))
	}
	return nil
}
