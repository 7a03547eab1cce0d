// Package pacing keeps the count of a remote stage's master behind a
// pacer: a rate stage before the stage in a chain, which says so with a
// pace.Paced (package internal/pace says what the two say to each other).
// Behind one, every task the master hands out, an item's first attempt or
// a later one, goes in the step of the message that brought its token,
// and starts on its worker as it comes. So:
//
//   - A worker is handed no more tasks than it has slots free: the tasks
//     it asked for beyond the prefetch it was granted. A worker asks for
//     its slots and prefetch, less every task it holds (at work, waiting
//     for a slot, hung, or held from before it rejoined), so what it asked
//     for beyond its prefetch is never more than its slots free. The
//     master grants no prefetch from then on: such a worker asks for its
//     free slots only.
//   - Its demand to the pacer is the room it opens ([Pacer.Open]): the
//     tasks the workers may take, less the passes it reserved and the room
//     open already, within the window and the input bound. The items that
//     come bring a token each ([Pacer.Came]): the tasks handed out in their
//     step number no more than they ([Pacer.Tokens], [Pacer.Spend]).
//   - Any item queued otherwise waits for a pass: an item taken back from
//     a worker (lost, gone, its lease expired, its work failed), or one
//     that came and found no slot (a worker went meanwhile, or it needs a
//     tag the free slots lack). The master reserves a pass for each queued
//     item that a worker could take now ([Pacer.Reserve]); a pass hands one
//     out as it comes ([Pacer.Pass]). A token the message brought that no
//     task used is dropped: kept for later, it would let two tasks start on
//     one token's instant.
//
// Without a pacer nothing of this runs: the master opens no room,
// reserves nothing and hands out what it may at once.
package pacing

// Pacer is the count a master keeps of the pacer before it: whether it
// follows one, the tokens of the message in hand (the items it brought,
// or its passes), the passes reserved and not yet come, and the room
// opened for items that have not come. The zero Pacer follows none. It is
// a plain value: a copy is a snapshot.
type Pacer struct {
	paced                  bool
	tokens, reserved, open int
}

// Follow makes p follow a pacer, from now on.
func (p *Pacer) Follow() { p.paced = true }

// Paced reports whether p follows a pacer.
func (p *Pacer) Paced() bool { return p.paced }

// Came counts n items that came: tokens for this message, and room
// filled.
func (p *Pacer) Came(n int) {
	p.tokens += n
	p.open = max(p.open-n, 0)
}

// Pass takes the n passes a pace.Pass brings, as tokens for this message,
// no more than were reserved. It reports false if it brings none.
func (p *Pacer) Pass(n int) bool {
	n = min(max(n, 0), p.reserved)
	if n == 0 {
		return false
	}
	p.reserved -= n
	p.tokens += n
	return true
}

// Tokens returns how many tasks the message in hand may hand out.
func (p *Pacer) Tokens() int { return p.tokens }

// Spend notes that n tasks were handed out on the message's tokens.
func (p *Pacer) Spend(n int) { p.tokens = max(p.tokens-n, 0) }

// Reserve drops the tokens the message brought that no task used, and
// returns how many passes to ask for: those that the takeable queued
// items (those a worker could take now) need beyond the passes reserved,
// counted reserved from now on.
func (p *Pacer) Reserve(takeable int) int {
	p.tokens = 0
	need := takeable - p.reserved
	if need <= 0 {
		return 0
	}
	p.reserved += need
	return need
}

// Open returns how much more room to open for items, counted open from
// now on: as many more as the workers could take as they come, places,
// less those kept for the passes reserved and the room already open;
// within window, the items the window has room for, less those too; and
// within input, the room of the input bound.
func (p *Pacer) Open(places, window, input int) int {
	more := min(places-p.reserved, window-p.reserved, input) - p.open
	if more <= 0 {
		return 0
	}
	p.open += more
	return more
}

// Reserved returns the passes reserved and not yet come.
func (p *Pacer) Reserved() int { return p.reserved }

// Room returns the room open for items that have not come.
func (p *Pacer) Room() int { return p.open }

// Close opens no more room: the stage takes no more items.
func (p *Pacer) Close() { p.open = 0 }
