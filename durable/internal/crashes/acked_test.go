package crashes

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

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
// file is rewritten as its ranges, not a line an acknowledgement.
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
		t.Errorf("run file of %d bytes for %d ranges held", fi.Size(), len(c.acked))
	}
	if !c.Done(99_999) || c.Done(99_990) {
		t.Error("Done does not follow Acked")
	}
}

// FuzzParseRun reads whatever a run file may hold, a death's cut or a
// disk's damage included: parseRun never panics, and the ranges it returns
// are sorted, apart and each in order.
func FuzzParseRun(f *testing.F) {
	f.Add("00000000000000000040 00000000000000000000\nabc 12\n= 1-5 7 9-12\n")
	f.Add("= 5-3\n= 0\n= 18446744073709551615-18446744073709551615 1-18446744073709551614\n")
	f.Add("x\n=\n= \n= -\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _, acked := parseRun(s)
		for i, r := range acked {
			if r.First > r.Last || r.First == 0 || i > 0 && r.First <= acked[i-1].Last+1 {
				t.Fatalf("ranges %v out of order", acked)
			}
			if !acked.Has(r.First) || !acked.Has(r.Last) {
				t.Fatalf("ranges %v lack their own bounds", acked)
			}
		}
	})
}
