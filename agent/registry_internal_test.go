package agent

import (
	"context"
	"runtime"
	"testing"
)

// TestARuntimeKeepsASmallRegistry checks that a runtime's actor system
// keeps its actors' names in registryBuckets buckets, that the actors it
// made as it started are still found there, and that a runtime, so made,
// keeps well under the 3 MB protoactor's registry alone took.
func TestARuntimeKeepsASmallRegistry(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rt := NewRuntime()
	defer rt.Shutdown(context.Background())
	runtime.GC()
	runtime.ReadMemStats(&after)
	reg := rt.parts.System.ProcessRegistry
	if n := len(reg.LocalPIDs.LocalPIDs); n != registryBuckets {
		t.Errorf("the registry has %d buckets; want %d", n, registryBuckets)
	}
	for _, name := range []string{"eventstream", "deadletter"} {
		if _, ok := reg.GetLocal(name); !ok {
			t.Errorf("the registry lost %q", name)
		}
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("a runtime keeps %d bytes; want under 1 MiB", grew)
	}
}
