package damage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record is read until it is forgotten, and says whether a block file
// changed since it was written; Check removes the stream's index, so that
// NATS checks every block.
func TestARecordSaysWhetherBlocksChanged(t *testing.T) {
	dir := t.TempDir()
	msgs := msgs(dir, "q")
	require.NoError(t, os.MkdirAll(msgs, 0o755))
	write := func(name, data string) {
		require.NoError(t, os.WriteFile(filepath.Join(msgs, name), []byte(data), 0o644))
	}
	write("1.blk", "records")
	write("index.db", "state")
	r, err := Read(dir)
	require.NoError(t, err)
	assert.Nil(t, r, "no record")

	blocks, err := Blocks(dir, "q")
	require.NoError(t, err)
	require.NoError(t, (&Record{Name: "q", Items: 3, Blocks: blocks}).Write(dir))
	r, err = Read(dir)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), r.Items)
	assert.False(t, r.Changed, "the blocks are as recorded")

	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(filepath.Join(msgs, "1.blk"), later, later))
	r, err = Read(dir)
	require.NoError(t, err)
	assert.True(t, r.Changed, "a block's time changed")
	require.NoError(t, os.WriteFile(filepath.Join(msgs, "2.blk"), nil, 0o644))
	require.NoError(t, os.Chtimes(filepath.Join(msgs, "1.blk"), blocks["1.blk"].Time, blocks["1.blk"].Time))
	r, err = Read(dir)
	require.NoError(t, err)
	assert.True(t, r.Changed, "a block file more")
	assert.FileExists(t, filepath.Join(msgs, "index.db"), "Read removes nothing")
	require.NoError(t, Check(dir, "q"))
	assert.NoFileExists(t, filepath.Join(msgs, "index.db"))
	require.NoError(t, Check(dir, "q"), "twice")

	require.NoError(t, Forget(dir))
	r, err = Read(dir)
	require.NoError(t, err)
	assert.Nil(t, r)
	assert.NoError(t, Forget(dir), "twice")
}

func TestCompare(t *testing.T) {
	r := &Record{Name: "q", Items: 10, Msgs: 12, Held: Ranges{{First: 1, Last: 12}}}
	_, lost := Compare(r, State{Items: 10, Msgs: 11, Held: Ranges{{First: 1, Last: 11}}})
	assert.False(t, lost, "a key marker expired: no item lost")

	rep, lost := Compare(r, State{Items: 7, Msgs: 8, Held: Ranges{{First: 1, Last: 6}, {First: 10, Last: 11}}})
	assert.True(t, lost)
	assert.Equal(t, "3 of its 10 items lost, at sequences 7-9, 12 (items, and key markers lost or expired)", rep.String())

	rep.Add(1, Ranges{{First: 20, Last: 20}})
	assert.Equal(t, "4 of its 10 items lost or unreadable, at sequences 7-9, 12, 20 (items, and key markers lost or expired); accepting the loss has NATS cut each damaged block file at the first record it cannot read, and drop the rest of the file", rep.String())

	rep, lost = Compare(nil, State{Items: 5, Lost: []uint64{9, 8}})
	assert.True(t, lost, "no record: what NATS says it lost")
	assert.Equal(t, "2 messages lost (items or key markers), at sequences 8-9", rep.String())
	_, lost = Compare(nil, State{Items: 5})
	assert.False(t, lost)
}
