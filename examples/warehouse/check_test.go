package main

import (
	"context"
	"errors"
	"fmt"
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
	err = tl.check(7, map[int]agent.DeadLetter{4: {Err: errors.New("gone")}, 6: {Err: errors.New("gone")}})
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
	assert.NoError(t, tl.check(4, map[int]agent.DeadLetter{3: {Err: errors.New("gone")}}))
	assert.ErrorContains(t, tl.check(4, nil), "1 ids missing: 3")
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
