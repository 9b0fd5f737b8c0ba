package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// storeRoot is where run and sweep write when no -out is given: one
// folder per scenario, one per run under it, named by the UTC time it
// started, as Jepsen's store/<test>/<time>/ (jepsen.store). Tests point it
// at a temporary folder.
var storeRoot = "store"

// storeTimeFormat names a run's folder: sortable, UTC, to the millisecond.
const storeTimeFormat = "20060102T150405.000Z"

// newStoreDir creates a new, empty folder store/<name>/<UTC time>/ and
// returns its path. It never reuses one: Mkdir fails on a folder that
// exists, and then the next name (-2, -3, ...) is tried.
func newStoreDir(name string, now time.Time) (string, error) {
	parent := filepath.Join(storeRoot, fileSafe(name))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	base := filepath.Join(parent, now.UTC().Format(storeTimeFormat))
	for i := 1; i < 1000; i++ {
		p := base
		if i > 1 {
			p = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(p, 0o755)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no free name for a new run", base)
}

// fileSafe keeps a scenario name to the characters a folder name may
// safely hold.
func fileSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		return "_" + string(b)
	}
	return string(b)
}

// linkLatest points store/latest and store/<name>/latest at dir (a folder
// under the store), as Jepsen does. It only ever replaces a symbolic
// link: a file or folder a person put at that name is left alone and
// reported.
func linkLatest(dir string) error {
	rel, err := filepath.Rel(storeRoot, dir)
	if err != nil {
		return err
	}
	if err := replaceLink(filepath.Join(storeRoot, "latest"), rel); err != nil {
		return err
	}
	return replaceLink(filepath.Join(filepath.Dir(dir), "latest"), filepath.Base(dir))
}

// replaceLink makes link a symbolic link to target: a new link under a
// temporary name renamed over the old one, so that readers always find
// one or the other.
func replaceLink(link, target string) error {
	if fi, err := os.Lstat(link); err == nil && fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("%s: exists and is not a symbolic link; left alone", link)
	}
	tmp := link + ".tmp-link"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
