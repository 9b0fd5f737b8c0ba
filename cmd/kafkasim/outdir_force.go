package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// With -force, an -out folder that already holds files is written into
// rather than refused. Even then nothing but a regular file is ever
// replaced: a symbolic link, a device, a FIFO or a folder standing where
// a new file goes stops the command before anything moves.

// checkMoveInto reports the first entry of src that cannot move into dst:
// one whose name in dst is anything but absent, a regular file (to be
// replaced by a regular file) or a real folder (to be merged into).
func checkMoveInto(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		to := filepath.Join(dst, e.Name())
		fi, err := os.Lstat(to)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		switch {
		case e.IsDir() && fi.IsDir():
			if err := checkMoveInto(filepath.Join(src, e.Name()), to); err != nil {
				return err
			}
		case e.Type().IsRegular() && fi.Mode().IsRegular():
		default:
			return fmt.Errorf("%s: is a %s; -force replaces only regular files", to, describeMode(fi.Mode()))
		}
	}
	return nil
}

// moveInto moves every entry of src into dst (checked by checkMoveInto
// first), then removes src.
func moveInto(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if fi, err := os.Lstat(to); err == nil && fi.IsDir() && e.IsDir() {
			if err := moveInto(from, to); err != nil {
				return err
			}
			continue
		}
		if err := os.Rename(from, to); err != nil {
			return err
		}
	}
	return os.Remove(src)
}

// describeMode names a file's type for a message.
func describeMode(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "FIFO"
	case m&os.ModeDevice != 0:
		return "device"
	case m&os.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	}
	return "special file"
}
