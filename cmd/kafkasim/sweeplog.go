package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

// manifestName is the file in a sweep's folder that records what the
// sweep was asked to run, so that `sweep -resume DIR` runs the rest of
// the same sweep.
const manifestName = "sweep.json"

// sweepManifest is what sweep.json holds: the flags that decide which
// runs a sweep makes and what each is (not -workers, -json or where it
// writes, which change neither).
type sweepManifest struct {
	Scenario string   `json:"scenario"`
	Seeds    int      `json:"seeds"`
	Start    uint64   `json:"start"`
	Set      []string `json:"set,omitempty"`
	Vary     string   `json:"vary,omitempty"`
	Shard    string   `json:"shard,omitempty"`
	Recheck  float64  `json:"recheck"`
	// Experiment is the sweep directory's copy of the experiment file it
	// sweeps (experimentFileName), "" for catalog scenarios.
	Experiment string `json:"experiment,omitempty"`
}

func writeManifest(dir string, m sweepManifest) error {
	return reports.WriteFile(filepath.Join(dir, manifestName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
}

func readManifest(dir string) (sweepManifest, error) {
	var m sweepManifest
	path := filepath.Join(dir, manifestName)
	b, err := os.ReadFile(path)
	if err != nil {
		return m, fmt.Errorf("-resume %s: %v (not a sweep's folder?)", dir, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%s:1: %v", path, err)
	}
	if m.Scenario == "" || m.Seeds < 1 {
		return m, fmt.Errorf("%s:1: no scenario or seeds", path)
	}
	return m, nil
}

// resultLog appends results to results.jsonl as they finish, one whole
// line per write, so that a sweep killed at any moment leaves every
// finished run readable (at worst a torn last line, which -resume drops
// and runs again).
type resultLog struct {
	f *os.File
}

func openResultLog(dir string) (*resultLog, error) {
	f, err := os.OpenFile(filepath.Join(dir, "results.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &resultLog{f: f}, nil
}

// append writes r's row (Result.Row: a few findings of each anomaly,
// the rest counted).
func (l *resultLog) append(r scenarios.Result) error {
	b, err := json.Marshal(r.Row())
	if err != nil {
		return err
	}
	_, err = l.f.Write(append(b, '\n'))
	return err
}

func (l *resultLog) close() error {
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// dropTornTail cuts a last line that has no newline (a row the sweep was
// writing when it was killed) from results.jsonl, and says whether it
// did.
func dropTornTail(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	// Read back from the end until a newline.
	const chunk = 64 << 10
	end := fi.Size()
	buf := make([]byte, chunk)
	for pos := end; pos > 0; {
		n := min(int64(chunk), pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return false, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut := pos + int64(i) + 1
			if cut == end {
				return false, nil
			}
			return true, f.Truncate(cut)
		}
	}
	return true, f.Truncate(0)
}

// eachResult reads a results.jsonl row by row, without holding them,
// naming the file and line of a bad one.
func eachResult(path string, fn func(line int, r scenarios.Result) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r scenarios.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if r.Scenario == "" {
			return fmt.Errorf("%s:%d: not a run result (no scenario)", path, line)
		}
		if err := fn(line, r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// readResults reads a whole results.jsonl.
func readResults(path string) ([]scenarios.Result, error) {
	var out []scenarios.Result
	err := eachResult(path, func(_ int, r scenarios.Result) error {
		out = append(out, r)
		return nil
	})
	return out, err
}
