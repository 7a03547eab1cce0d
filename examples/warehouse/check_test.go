package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeBatch writes records with the ids given to the n-th batch file in dir.
func writeBatch(t *testing.T, dir string, n int, ids ...int) {
	t.Helper()
	var rs []record
	for _, id := range ids {
		rs = append(rs, recordFor(id))
	}
	fs := &files{dir: dir}
	fs.written.Store(int64(n - 1))
	require.NoError(t, fs.write(t.Context(), rs))
}

func TestTheCheckFindsEveryKindOfFault(t *testing.T) {
	dir := t.TempDir()
	writeBatch(t, dir, 1, 1, 2, 3)
	writeBatch(t, dir, 2, 3, 5, 6, 99)
	require.NoError(t, os.WriteFile(filepath.Join(dir, batchName(3)), []byte("{\"id\":7}\nnot json\n"), 0o644))
	tl, err := readBack(dir)
	require.NoError(t, err)
	assert.Equal(t, 3, tl.files)
	assert.Equal(t, 9, tl.records)
	err = tl.check(7, map[int]agent.DeadLetter{4: {Err: errors.New("gone")}, 6: {Err: errors.New("gone")}}, 0)
	assert.EqualError(t, err, "1 ids missing: 7\n"+
		"1 ids written more than once: 3\n"+
		"1 ids written though reported failed: 6\n"+
		"1 ids not asked for: 99\n"+
		"2 lines are not a record: batch-000003.ndjson:1, batch-000003.ndjson:2")

	clean := t.TempDir()
	writeBatch(t, clean, 1, 1, 2)
	writeBatch(t, clean, 2, 4)
	tl, err = readBack(clean)
	require.NoError(t, err)
	assert.NoError(t, tl.check(4, map[int]agent.DeadLetter{3: {Err: errors.New("gone")}}, 0))
	assert.ErrorContains(t, tl.check(4, nil, 0), "1 ids missing: 3")
}

func TestABatchFileIsWholeOrAbsent(t *testing.T) {
	dir := t.TempDir()
	writeBatch(t, dir, 1, 1, 2)
	b, err := os.ReadFile(filepath.Join(dir, batchName(1)))
	require.NoError(t, err)
	assert.Equal(t, `{"id":1,"sku":"SKU-0000001","name":"item 1","stock":919}`+"\n"+
		`{"id":2,"sku":"SKU-0000002","name":"item 2","stock":838}`+"\n", string(b))

	gone := filepath.Join(dir, "gone")
	fs := &files{dir: gone}
	assert.Error(t, fs.write(t.Context(), []record{recordFor(1)}), "no such directory")
	assert.Zero(t, fs.written.Load())
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, batchName(1))}, names, "no temporary file left")
}

func TestRetryAfterIsReadInSeconds(t *testing.T) {
	h := http.Header{}
	assert.Zero(t, retryAfter(h))
	h.Set("Retry-After", "2")
	assert.Equal(t, 2*time.Second, retryAfter(h))
	h.Set("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")
	assert.Zero(t, retryAfter(h), "a date is not read")
	h.Set("Retry-After", "-1")
	assert.Zero(t, retryAfter(h))
}

func TestWhatIsRetried(t *testing.T) {
	assert.True(t, retryable(statusError{429}))
	assert.True(t, retryable(statusError{503}))
	assert.True(t, retryable(errors.New("connection reset by peer")))
	assert.False(t, retryable(statusError{404}))
	assert.False(t, retryable(errAnswer))
	assert.False(t, retryable(fmt.Errorf("record 3: %w", context.Canceled)), "the load stops")
}

// checkDirs runs `warehouse check` with args, and returns what it printed
// and its error.
func checkDirs(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(t.Context(), append([]string{"check"}, args...), &out, io.Discard)
	return out.String(), err
}

func TestTheCheckOfSeveralProcessesCountsEachAndFindsWhatIsAmiss(t *testing.T) {
	state, out := t.TempDir(), t.TempDir() // a -state directory, and an -out one
	require.NoError(t, os.Mkdir(filepath.Join(state, batchesDir), 0o755))
	writeBatch(t, filepath.Join(state, batchesDir), 1, 1, 2)
	writeBatch(t, filepath.Join(state, batchesDir), 2, 3, 4)
	writeBatch(t, out, 1, 5, 6)

	text, err := checkDirs(t, "-records", "6", state, out)
	require.NoError(t, err)
	assert.Equal(t, state+": 4 records in 2 files\n"+out+": 2 records in 1 files\n"+
		"check: every id from 1 to 6 is in the 3 files of the 2 directories; 0 loaded more than once (-rework 0)\n", text)

	text, err = checkDirs(t, "-records", "7", state, out)
	require.EqualError(t, err, "check: 1 ids missing: 7")
	assert.Equal(t, 1, exitCode(err, io.Discard))
	assert.Contains(t, text, "check: FAILED\n")

	// A crash loaded 3 and 5 again, in the other process's files.
	writeBatch(t, out, 2, 3, 5)
	_, err = checkDirs(t, "-records", "6", state, out)
	require.EqualError(t, err, "check: 2 ids written more than once: 3, 5", "no crash, no duplicate")
	_, err = checkDirs(t, "-records", "6", "-rework", "1", state, out)
	require.Error(t, err, "beyond what the crashes could load again")
	text, err = checkDirs(t, "-records", "6", "-rework", "2", state, out)
	require.NoError(t, err)
	assert.Contains(t, text, out+": 4 records in 2 files\n")
	assert.Contains(t, text, "; 2 loaded more than once (-rework 2)\n")

	// 7 failed for good, as the dead letters of the -state directory say.
	line, err := json.Marshal(deadLine{ID: 7, Agent: "fetch", Attempts: 8, Error: "record 7: 500 Internal Server Error"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(state, deadFile), append(line, "\n{\"id\":"...), 0o644))
	text, err = checkDirs(t, "-records", "7", "-rework", "2", state, out)
	require.NoError(t, err, "a line cut short is not a dead letter")
	assert.Contains(t, text, "is in the 4 files of the 2 directories, but the 1 dead letters, which are in none;")
	writeBatch(t, out, 3, 7)
	_, err = checkDirs(t, "-records", "7", "-rework", "2", state, out)
	require.EqualError(t, err, "check: 1 ids written though reported failed: 7")

	// A third process loaded an id beyond -records, and a line that is
	// not a record.
	third := t.TempDir()
	writeBatch(t, third, 1, 8)
	require.NoError(t, os.WriteFile(filepath.Join(third, batchName(2)), []byte("{\"id\":9}\n"), 0o644))
	text, err = checkDirs(t, "-records", "6", "-rework", "2", state, third)
	require.EqualError(t, err, "check: 2 ids missing: 5, 6\n1 ids not asked for: 8\n1 lines are not a record: "+filepath.Join(third, batchName(2))+":1")
	assert.Equal(t, state+": 4 records in 2 files\n"+third+": 2 records in 2 files\ncheck: FAILED\n", text)

	_, err = checkDirs(t, "-records", "6", state, filepath.Join(state, "nowhere"))
	require.EqualError(t, err, "check: "+filepath.Join(state, "nowhere")+" is not a directory")
	assert.Equal(t, 1, exitCode(err, io.Discard))
}
