package sim

import (
	"sort"
	"strings"
)

// folderIndex lists a disk's file names by top folder (the name up to and
// including its first '/'), so that List finds a folder's files without
// walking the whole disk. A broker keeps a folder of a few files for every
// partition it hosts and lists one folder each time it opens a partition:
// a walk over every file for each made opening a broker's partitions cost
// the square of their number.
type folderIndex map[string]map[string]struct{}

// topFolder is the top folder of name, or false for a name outside any.
func topFolder(name string) (string, bool) {
	i := strings.IndexByte(name, '/')
	if i < 0 {
		return "", false
	}
	return name[:i+1], true
}

func (x folderIndex) add(name string) {
	dir, ok := topFolder(name)
	if !ok {
		return
	}
	names := x[dir]
	if names == nil {
		names = map[string]struct{}{}
		x[dir] = names
	}
	names[name] = struct{}{}
}

func (x folderIndex) remove(name string) {
	dir, ok := topFolder(name)
	if !ok {
		return
	}
	if names := x[dir]; names != nil {
		delete(names, name)
		if len(names) == 0 {
			delete(x, dir)
		}
	}
}

// setFile makes name refer to f in the page cache's namespace.
func (d *Disk) setFile(name string, f *file) {
	d.files[name] = f
	d.folders.add(name)
}

// dropFile removes name from the page cache's namespace.
func (d *Disk) dropFile(name string) {
	delete(d.files, name)
	d.folders.remove(name)
}

// indexFiles builds the folder index of d.files afresh.
func (d *Disk) indexFiles() {
	d.folders = folderIndex{}
	for name := range d.files {
		d.folders.add(name)
	}
}

// List returns the names of the files whose names start with prefix,
// sorted. A prefix inside a folder looks in that folder only: every name
// it matches is there.
func (d *Disk) List(prefix string) []string {
	var out []string
	if dir, ok := topFolder(prefix); ok {
		for n := range d.folders[dir] {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
	} else {
		for n := range d.files {
			if strings.HasPrefix(n, prefix) {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
