package crashes

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrashRecordsFollowTheRuns walks the crash file through the runs of
// a queue: a run that dies holding items makes suspects of them, one that
// dies working on a suspect alone charges it, one that ends well clears
// the suspects, items gone from the stream are forgotten, and a stream
// made anew starts a record of its own.
func TestCrashRecordsFollowTheRuns(t *testing.T) {
	dir := t.TempDir()
	made := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

	c, err := Open(dir, made, 1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Suspects() {
		t.Fatal("a first run has suspects")
	}
	if err := c.HandOut(40); err != nil {
		t.Fatal(err)
	}
	c.Close(false) // dies holding items up to 40

	c, err = Open(dir, made, 5)
	if err != nil {
		t.Fatal(err)
	}
	if c.upTo != 40 {
		t.Fatalf("suspects up to %d; want 40", c.upTo)
	}
	if err := c.HandOut(90); err != nil {
		t.Fatal(err)
	}
	c.writeAlone(13)
	c.Close(false) // dies working on 13 alone

	c, err = Open(dir, made, 5)
	if err != nil {
		t.Fatal(err)
	}
	if c.upTo != 40 || c.Killed(13) != 1 || c.Killed(14) != 0 {
		t.Fatalf("suspects up to %d, 13 killed %d, 14 killed %d; want 40, 1, 0", c.upTo, c.Killed(13), c.Killed(14))
	}
	c.Close(true) // ends well

	c, err = Open(dir, made, 5)
	if err != nil {
		t.Fatal(err)
	}
	if c.Suspects() || c.Killed(13) != 1 {
		t.Fatalf("after a run that ended well: suspects %v, 13 killed %d; want none, 1", c.Suspects(), c.Killed(13))
	}
	c.Close(true)

	c, err = Open(dir, made, 20) // 13 is gone
	if err != nil {
		t.Fatal(err)
	}
	if c.Killed(13) != 0 {
		t.Fatalf("an item gone from the stream still counts %d deaths", c.Killed(13))
	}
	c.writeAlone(25)
	c.Close(false)

	c, err = Open(dir, made.Add(time.Hour), 1) // a new stream
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(true)
	if c.Killed(25) != 1 {
		// The death of the last run is the new stream's: it ran on it.
		t.Fatalf("25 killed %d; want 1", c.Killed(25))
	}
	data, err := os.ReadFile(filepath.Join(dir, crashName))
	if err != nil || len(data) == 0 {
		t.Fatalf("the crash file: %q, %v", data, err)
	}
}

// TestSuspectsAreWorkedOnAlone runs the work on suspects and other items
// from many goroutines: no other work starts or runs beside a suspect's.
func TestSuspectsAreWorkedOnAlone(t *testing.T) {
	c := &Record{dir: t.TempDir(), upTo: 10}
	var running, overlaps atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seq := uint64(i%20 + 1) // 1 to 10 are suspects
			c.Work(seq, func() {
				n := running.Add(1)
				for range 100 {
					runtime.Gosched() // let any other work start
				}
				if seq <= 10 && (n != 1 || running.Load() != 1) {
					overlaps.Add(1)
				}
				running.Add(-1)
			})
		}()
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Errorf("%d suspects were worked on beside other work", overlaps.Load())
	}
}

// TestFairKeysHaveSuspectsOfTheirOwn records the items a run hands out of
// two fair keys and of none, and dies: the next run's suspects of each
// key are its items up to the highest handed out of that key, whatever
// the others' sequences; a record written thousands of times is kept
// short and still read whole; a line the death cut short is left out.
func TestFairKeysHaveSuspectsOfTheirOwn(t *testing.T) {
	dir := t.TempDir()
	made := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c, err := Open(dir, made, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.HandOutOf(map[string]uint64{"": 10, "big": 7}); err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1000); seq < 4000; seq++ { // the small key's items came last
		if err := c.HandOutOf(map[string]uint64{"small": seq}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.HandOutOf(map[string]uint64{"big": 9, "small": 5}); err != nil { // small's 5 is below its mark
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, runName))
	if err != nil || info.Size() > 42+2*1024*20 {
		t.Fatalf("the run file after 3,000 marks: %v, %v; want it kept short", info.Size(), err)
	}
	c.Close(false) // dies

	c, err = Open(dir, made, 8)
	if err != nil {
		t.Fatal(err)
	}
	if c.upTo != 10 || c.upToOf["big"] != 9 || c.upToOf["small"] != 3999 || !c.Suspects() {
		t.Fatalf("suspects up to %d, of big %d, of small %d; want 10, 9, 3999", c.upTo, c.upToOf["big"], c.upToOf["small"])
	}
	for _, w := range []struct {
		key   string
		seq   uint64
		alone bool
	}{{"", 10, true}, {"", 11, false}, {"big", 9, true}, {"big", 3000, false}, {"small", 3000, true}, {"other", 8, false}} {
		if got := c.alone.TryRLock(); !got {
			t.Fatal("work still alone")
		}
		c.alone.RUnlock()
		var alone bool
		c.WorkOf(w.key, w.seq, func() {
			alone = !c.alone.TryRLock()
			if !alone {
				c.alone.RUnlock()
			}
		})
		if alone != w.alone {
			t.Errorf("item %d of key %q worked alone: %v, want %v", w.seq, w.key, alone, w.alone)
		}
	}
	// A death that cut a line short.
	run, err := os.OpenFile(filepath.Join(dir, runName), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.WriteString("late 77\nlater 8"); err != nil {
		t.Fatal(err)
	}
	run.Close()
	c.Close(false)
	if c, err = Open(dir, made, 8); err != nil {
		t.Fatal(err)
	}
	defer c.Close(true)
	if c.upToOf["late"] != 77 || c.upToOf["later"] != 0 || c.upToOf["small"] != 3999 {
		t.Errorf("after a cut line: late %d, later %d, small %d; want 77, 0, 3999", c.upToOf["late"], c.upToOf["later"], c.upToOf["small"])
	}
}
