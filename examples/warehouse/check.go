package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evolvekit/evolve/agent"
)

// tally is what the batch files in a directory hold, read back.
type tally struct {
	files   int
	records int         // lines read
	seen    map[int]int // how many times each id appears
	bad     []string    // lines that are not a record, as file:line
}

// readBack reads every batch file in dir.
func readBack(dir string) (tally, error) {
	names, err := filepath.Glob(filepath.Join(dir, filePattern))
	if err != nil {
		return tally{}, err
	}
	t := tally{seen: make(map[int]int)}
	for _, name := range names {
		if err := t.read(name); err != nil {
			return tally{}, err
		}
	}
	return t, nil
}

// read adds one batch file to t.
func (t *tally) read(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	t.files++
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		t.records++
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r != recordFor(r.ID) {
			t.bad = append(t.bad, fmt.Sprintf("%s:%d", filepath.Base(name), n))
			continue
		}
		t.seen[r.ID]++
	}
	return sc.Err()
}

// check reports whether every id from 1 to n appears in t, except the
// ids in failed (the dead letters), which must not appear at all; whether
// ids appear more than once, beyond rework copies in all (what crashes
// loaded again); and whether anything else appears. Its error lists the
// ids at fault, at most a few of each kind.
func (t tally) check(n int, failed map[int]agent.DeadLetter, rework int) error {
	var missing, reported []int
	for id := 1; id <= n; id++ {
		_, gone := failed[id]
		switch c := t.seen[id]; {
		case gone && c > 0:
			reported = append(reported, id)
		case !gone && c == 0:
			missing = append(missing, id)
		}
	}
	return t.report(n, rework, missing, reported)
}

// report returns the error that lists the ids given, those in t more than
// once if more than rework copies in all, those not from 1 to n if n is
// not 0, and the lines that are not records.
func (t tally) report(n, rework int, missing, reported []int) error {
	var twice, unexpected []int
	for id, c := range t.seen {
		if c > 1 {
			twice = append(twice, id)
		}
		if n > 0 && (id < 1 || id > n) {
			unexpected = append(unexpected, id)
		}
	}
	if t.copies() <= rework {
		twice = nil
	}
	slices.Sort(twice)
	slices.Sort(unexpected)
	var errs []error
	for _, p := range []struct {
		what string
		ids  []int
	}{
		{"missing", missing},
		{"written more than once", twice},
		{"written though reported failed", reported},
		{"not asked for", unexpected},
	} {
		if len(p.ids) > 0 {
			errs = append(errs, fmt.Errorf("%d ids %s: %s", len(p.ids), p.what, some(p.ids)))
		}
	}
	if len(t.bad) > 0 {
		errs = append(errs, fmt.Errorf("%d lines are not a record: %s", len(t.bad), strings.Join(t.bad[:min(len(t.bad), 5)], ", ")))
	}
	return errors.Join(errs...)
}

// copies returns how many records t holds beyond one of each id.
func (t tally) copies() int {
	n := 0
	for _, c := range t.seen {
		n += c - 1
	}
	return n
}

// add adds u, the files of directory dir, to t.
func (t *tally) add(dir string, u tally) {
	t.files += u.files
	t.records += u.records
	for id, c := range u.seen {
		t.seen[id] += c
	}
	for _, b := range u.bad {
		t.bad = append(t.bad, filepath.Join(dir, b))
	}
}

// some returns the first few of ids, comma-separated.
func some(ids []int) string {
	const few = 10
	var b strings.Builder
	for i, id := range ids[:min(len(ids), few)] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, id)
	}
	if len(ids) > few {
		b.WriteString(", ...")
	}
	return b.String()
}

// checkCommand is `warehouse check -records N [-rework R] DIR...`, which
// checks the batch files of a load's processes together (see usageText):
// tally.check of them all, with rework copies allowed.
func checkCommand(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("warehouse check", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	records := flags.Int("records", 0, "")
	rework := flags.Int("rework", 0, "")
	err := flags.Parse(args)
	dirs := flags.Args()
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageText)
		return nil
	case err != nil:
	case *records < 1 || *records > maxRecords:
		err = fmt.Errorf("check: -records must be between 1 and %d, got %d", maxRecords, *records)
	case *rework < 0:
		err = fmt.Errorf("check: -rework must not be negative, got %d", *rework)
	case len(dirs) == 0:
		err = errors.New("check: name the directories to check, the -state or -out of each process")
	}
	if err != nil {
		return flagError{err}
	}
	all := tally{seen: map[int]int{}}
	failed := map[int]agent.DeadLetter{}
	for _, dir := range dirs {
		t, dead, err := readDir(dir)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		fmt.Fprintf(stdout, "%s: %d records in %d files\n", dir, t.records, t.files)
		all.add(dir, t)
		maps.Copy(failed, dead)
	}
	if err := all.check(*records, failed, *rework); err != nil {
		fmt.Fprintln(stdout, "check: FAILED")
		return fmt.Errorf("check: %w", err)
	}
	fmt.Fprintf(stdout, "check: every id from 1 to %d is in the %d files of the %d directories", *records, all.files, len(dirs))
	if len(failed) > 0 {
		fmt.Fprintf(stdout, ", but the %d dead letters, which are in none", len(failed))
	}
	fmt.Fprintf(stdout, "; %d loaded more than once (-rework %d)\n", all.copies(), *rework)
	return nil
}

// readDir reads the batch files of dir, in dir/batches for a -state
// directory and in dir itself otherwise, and the dead letters dir lists.
func readDir(dir string) (tally, map[int]agent.DeadLetter, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return tally{}, nil, fmt.Errorf("%s is not a directory", dir)
	}
	files := filepath.Join(dir, batchesDir)
	if fi, err := os.Stat(files); err != nil || !fi.IsDir() {
		files = dir
	}
	t, err := readBack(files)
	if err != nil {
		return tally{}, nil, err
	}
	dead, _, _, err := readDead(filepath.Join(dir, deadFile))
	return t, dead, err
}
