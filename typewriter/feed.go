package main

import (
	"context"
	"sync"
)

// poster is what a feeder needs of the chain.
type poster interface {
	Post(ctx context.Context, k rune) error
	Close()
	Wait(ctx context.Context) error
}

// feeder hands the keys typed on a terminal to the chain, in order, from a
// goroutine of its own, so the display never waits for the chain: the keys a
// full chain has not taken yet wait here. Its methods are safe for
// concurrent use.
type feeder struct {
	mu      sync.Mutex
	keys    []rune // typed, not yet handed to the chain
	posting int    // 1 while a key is being posted
	ended   bool
	wake    chan struct{}
}

// newFeeder returns a feeder with no keys; run starts it.
func newFeeder() *feeder {
	return &feeder{wake: make(chan struct{}, 1)}
}

// add queues keys for the chain. It returns false, queueing nothing, once
// end has been called.
func (f *feeder) add(keys ...rune) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ended {
		return false
	}
	f.keys = append(f.keys, keys...)
	f.signal()
	return true
}

// end says no more keys will come: run closes the chain once every key
// queued has been posted.
func (f *feeder) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended = true
	f.signal()
}

// waiting returns the number of keys typed but not yet taken by the chain.
func (f *feeder) waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.keys) + f.posting
}

// signal wakes run. f.mu is held.
func (f *feeder) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// run posts the keys queued to chain, in order, blocking while the chain is
// full. After end, once every key is posted, it closes the chain and returns
// what the chain's Wait returns: nil when every key is in the file. It
// returns early with an error if ctx ends or a post fails.
func (f *feeder) run(ctx context.Context, chain poster) error {
	for {
		k, ok, ended := f.next()
		switch {
		case ok:
			err := chain.Post(ctx, k)
			f.posted(k, err == nil)
			if err != nil {
				return err
			}
		case ended:
			chain.Close()
			return chain.Wait(ctx)
		default:
			select {
			case <-f.wake:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// next takes the oldest key queued, if any, and says whether input ended.
func (f *feeder) next() (k rune, ok, ended bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.keys) == 0 {
		return 0, false, f.ended
	}
	k, f.keys = f.keys[0], f.keys[1:]
	f.posting = 1
	return k, true, false
}

// posted records that the chain took k, or refused it: a key refused
// waits again at the front.
func (f *feeder) posted(k rune, taken bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posting = 0
	if !taken {
		f.keys = append([]rune{k}, f.keys...)
	}
}
