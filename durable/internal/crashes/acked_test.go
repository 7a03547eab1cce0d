package crashes

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestSpansHoldWhatWasAdded adds sequences in a shuffled order and checks
// the set against a plain map: each is in it, no other is, the spans are
// sorted, apart and merged, and above drops what is at or below a floor.
func TestSpansHoldWhatWasAdded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var s spans
		in := map[uint64]bool{}
		for range rng.IntN(200) {
			seq := 1 + rng.Uint64N(300)
			s, in[seq] = s.add(seq), true
		}
		for seq := uint64(0); seq <= 301; seq++ {
			if s.has(seq) != in[seq] {
				t.Fatalf("round %d: has(%d) = %v; want %v (%v)", round, seq, s.has(seq), in[seq], s)
			}
		}
		for i := 1; i < len(s); i++ {
			if s[i].lo <= s[i-1].hi+1 || s[i].lo > s[i].hi {
				t.Fatalf("round %d: spans %v and %v neither apart nor in order", round, s[i-1], s[i])
			}
		}
		back, err := parseSpans(nil, string(s.appendLine(nil))[len(ackedLine):])
		if err != nil || !slices.Equal(back, s) && len(s) > 0 {
			t.Fatalf("round %d: %v read back as %v, %v", round, s, back, err)
		}
		floor := rng.Uint64N(300)
		s = s.above(floor)
		for seq := uint64(0); seq <= 301; seq++ {
			if want := in[seq] && seq > floor; s.has(seq) != want {
				t.Fatalf("round %d: above %d, has(%d) = %v; want %v", round, floor, seq, s.has(seq), want)
			}
		}
	}
}

// TestBadSpansAreRefused reads lines a run file cannot hold.
func TestBadSpansAreRefused(t *testing.T) {
	for _, line := range []string{"x", "0", "5-3", "1-", "-4", "3-x"} {
		if _, err := parseSpans(nil, line); err == nil {
			t.Errorf("%q read without error", line)
		}
	}
}

// TestAcknowledgementsOutliveTheRunThatDied records acknowledgements in a
// run that dies, and checks the next run knows them as done, above the
// floor it opens with, and keeps them in its own run file for a run after
// it that dies too; a run that ends well leaves none; a line the death cut
// short is as not written.
func TestAcknowledgementsOutliveTheRunThatDied(t *testing.T) {
	dir := t.TempDir()
	made := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c, err := Open(dir, made, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.HandOut(60); err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 50; seq++ {
		if seq != 20 {
			if err := c.Acked(seq); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.Acked(55, 57); err != nil {
		t.Fatal(err)
	}
	if !c.Done(57) || c.Done(56) || c.Done(20) {
		t.Fatal("Done does not follow Acked")
	}
	c.Close(false) // dies

	c, err = Open(dir, made, 11) // the consumer's floor was written at 10
	if err != nil {
		t.Fatal(err)
	}
	for seq, want := range map[uint64]bool{5: false, 10: false, 11: true, 19: true, 20: false, 21: true, 50: true, 51: false, 55: true, 56: false, 57: true, 60: false} {
		if c.Done(seq) != want {
			t.Errorf("after one death, Done(%d) = %v; want %v", seq, !want, want)
		}
	}
	if c.upTo != 60 {
		t.Errorf("suspects up to %d; want 60", c.upTo)
	}
	c.Close(false) // dies again at once

	c, err = Open(dir, made, 11)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Done(57) || !c.Done(30) || c.Done(20) {
		t.Error("a second death forgot the first run's acknowledgements")
	}
	// A line cut short by a death is as not written.
	run, err := os.OpenFile(filepath.Join(dir, runName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.WriteString(ackedLine + "70-80 9"); err != nil {
		t.Fatal(err)
	}
	run.Close()
	c.Close(false)
	c, err = Open(dir, made, 11)
	if err != nil {
		t.Fatal(err)
	}
	if c.Done(75) {
		t.Error("a line cut short counted")
	}
	c.Prune(40)
	if c.Done(30) || !c.Done(45) {
		t.Error("Prune kept what is below its floor, or dropped what is above")
	}
	c.Close(true) // ends well

	c, err = Open(dir, made, 11)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(true)
	if c.Done(45) {
		t.Error("a run that ended well left acknowledgements")
	}
}

// TestManyAcknowledgementsKeepTheRunFileSmall acknowledges a hundred
// thousand items one by one, with every tenth held, and checks the run
// file is rewritten as its spans, not a line an acknowledgement.
func TestManyAcknowledgementsKeepTheRunFileSmall(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(dir, time.Now(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(true)
	for seq := uint64(1); seq <= 100_000; seq++ {
		if seq%10 != 0 {
			if err := c.Acked(seq); err != nil {
				t.Fatal(err)
			}
		}
		if seq%1000 == 0 {
			c.Prune(seq - 500)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, runName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 200_000 {
		t.Errorf("run file of %d bytes for %d spans held", fi.Size(), len(c.acked))
	}
	if !c.Done(99_999) || c.Done(99_990) {
		t.Error("Done does not follow Acked")
	}
}

// FuzzParseRun reads whatever a run file may hold, a death's cut or a
// disk's damage included: parseRun never panics, and the spans it returns
// are sorted, apart and each in order.
func FuzzParseRun(f *testing.F) {
	f.Add("00000000000000000040 00000000000000000000\nabc 12\n= 1-5 7 9-12\n")
	f.Add("= 5-3\n= 0\n= 18446744073709551615-18446744073709551615 1-18446744073709551614\n")
	f.Add("x\n=\n= \n= -\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _, acked := parseRun(s)
		for i, sp := range acked {
			if sp.lo > sp.hi || sp.lo == 0 || i > 0 && sp.lo <= acked[i-1].hi+1 {
				t.Fatalf("spans %v out of order", acked)
			}
			if !acked.has(sp.lo) || !acked.has(sp.hi) {
				t.Fatalf("spans %v lack their own bounds", acked)
			}
		}
	})
}
