package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAKilledLoadResumesWithItsState runs the program with -state in a
// child process, kills it with SIGKILL once some batch files are written,
// and runs it again with the same flags: the second run says how many
// records it found loaded, loads only the rest, and its check finds every
// record in the files exactly once.
func TestAKilledLoadResumesWithItsState(t *testing.T) {
	dir := t.TempDir()
	args := fmt.Sprintf("-records 1500 -rate 3000 -batch 50 -fail 0 -state %s", dir)
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), childArgs+"="+args)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for {
		files, err := filepath.Glob(filepath.Join(dir, "batches", filePattern))
		require.NoError(t, err)
		if len(files) >= 5 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the first run ended before it was killed: %v", err)
		default:
		}
		require.True(t, time.Now().Before(deadline), "the first run wrote %d files in a minute", len(files))
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-done

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := run(ctx, regexp.MustCompile(`\s+`).Split(args, -1), &out, &errs)
	require.NoError(t, err, "%s\n%s", out.String(), errs.String())
	m := regexp.MustCompile(`found (\d+) records already loaded`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	found, _ := strconv.Atoi(m[1])
	require.Greater(t, found, 0, "the second run found nothing loaded")
	loaded := figure(t, out.String(), "records loaded")
	require.Equal(t, 1500, found+loaded, "what the first run loaded and what the second did add up to every record once:\n%s", out.String())
	require.Contains(t, out.String(), "check:           every id from 1 to 1500 is in")
	seen, _ := readFiles(t, filepath.Join(dir, "batches"))
	require.Len(t, seen, 1500)
	for id, n := range seen {
		require.Equal(t, 1, n, "record %d", id)
	}
	t.Logf("the first run, killed, loaded %d records; the second loaded the other %d", found, loaded)
}
