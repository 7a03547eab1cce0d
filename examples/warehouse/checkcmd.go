package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"

	"github.com/evolvekit/evolve/agent"
)

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
