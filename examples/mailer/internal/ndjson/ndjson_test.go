package ndjson

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type rec struct{ ID string }

func TestBatchesAreReadBackInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.ndjson")
	w, err := Create[rec]("log", path, "")
	require.NoError(t, err)
	require.NoError(t, w.Write(context.Background(), []rec{{"<1@x>"}, {"<2@x>"}}))
	require.NoError(t, w.Write(context.Background(), []rec{{"<3@x>"}}))
	require.NoError(t, w.Close())
	got, err := Read[rec]("log", path)
	require.NoError(t, err)
	assert.Equal(t, []rec{{"<1@x>"}, {"<2@x>"}, {"<3@x>"}}, got)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"<1@x>"`, "no HTML escapes")
}

func TestACutRecordIsNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.ndjson")
	require.NoError(t, os.WriteFile(path, []byte("{\"ID\":\"a\"}\n{\"ID\":"), 0o600))
	got, err := Read[rec]("campaign log", path)
	assert.Len(t, got, 1)
	assert.ErrorContains(t, err, "campaign log "+path+", record 2: ")
	_, err = Read[rec]("campaign log", filepath.Join(t.TempDir(), "none"))
	assert.ErrorContains(t, err, "campaign log: open ")
}

func TestACancelledWriteWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, err := Create[rec]("log", "", "ndjson-test-*.ndjson")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.Remove(w.Path) })
	assert.ErrorIs(t, w.Write(ctx, []rec{{"a"}}), context.Canceled)
	require.NoError(t, w.Close())
}
