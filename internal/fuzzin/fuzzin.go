// Package fuzzin reads the bytes a fuzzer gives a fuzz target as the
// choices the target makes: a byte at a time, zeros past the end, and steps
// of a virtual clock. The fuzz targets of the agent packages share it, so
// they read their inputs alike.
package fuzzin

import "time"

// Bytes reads a fuzz input a byte at a time; past its end it reads zeros,
// so any input, however short, drives a whole run.
type Bytes struct {
	data []byte
	i    int
}

// New returns a reader of data.
func New(data []byte) *Bytes { return &Bytes{data: data} }

// Seed returns a number made of the input's first eight bytes, read or
// not: a seed for a target's own random draws, so that an input always
// replays the same.
func (b *Bytes) Seed() uint64 {
	var seed uint64
	for _, c := range b.data[:min(len(b.data), 8)] {
		seed = seed<<8 | uint64(c)
	}
	return seed
}

// More reports whether bytes are left.
func (b *Bytes) More() bool { return b.i < len(b.data) }

// Byte returns the next byte, or 0 past the end.
func (b *Bytes) Byte() byte {
	if b.i >= len(b.data) {
		return 0
	}
	b.i++
	return b.data[b.i-1]
}

// Delay decodes a step of the clock from one byte: its low five bits count
// units of 1µs to 1s, which its high three bits pick; 0 is no step.
func Delay(b byte) time.Duration {
	units := [8]time.Duration{0, time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond,
		time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second}
	return time.Duration(b&31) * units[b>>5]
}
