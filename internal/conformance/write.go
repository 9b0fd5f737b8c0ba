package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkTarget refuses a target that exists but is a symlink or not a
// regular file: writing through a link could change a file elsewhere, and
// replacing a directory or device is never meant.
func checkTarget(path string) error {
	fi, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; refusing to write through it", path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; refusing to replace it", path)
	}
	return nil
}

// writeAtomically replaces path with data so that a reader sees the old
// file or the new one, never part of either: the bytes go to a temporary
// file in the same directory, which is synced and renamed over path.
func writeAtomically(path string, data []byte) (err error) {
	if err := checkTarget(path); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
