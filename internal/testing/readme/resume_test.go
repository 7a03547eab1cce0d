package readme

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/durable"
)

// TestDurableResumes runs the README's durable program twice in one
// directory: the first run adds every entry and writes every record, the
// second finds the marker and the queue empty, and writes nothing.
func TestDurableResumes(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var entries []durable.Entry[int]
	for id := range 50 {
		entries = append(entries, durable.Entry[int]{Key: strconv.Itoa(id), Value: id})
	}
	for run, want := range []int64{50, 0} {
		written.Store(0)
		rt := agent.NewRuntime()
		if err := snippetDurable(ctx, rt, entries); err != nil {
			t.Fatalf("run %d: %v", run+1, err)
		}
		if err := rt.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if got := written.Load(); got != want {
			t.Errorf("run %d wrote %d records, want %d", run+1, got, want)
		}
		if _, err := os.Stat("state/added"); err != nil {
			t.Errorf("run %d: %v", run+1, err)
		}
	}
}
