package wire

import (
	"errors"
	"fmt"
)

// DefaultMaxMessage is the most bytes one message between a master and a
// worker carries unless their configurations say otherwise: gRPC's
// receive limit on both sides, so that no peer makes either hold more for
// one message.
const DefaultMaxMessage = 64 << 20

// MinMessage is the least bound a master or a worker may be given, or a
// peer may name: room for the protocol's own messages with plenty to spare.
const MinMessage = 1 << 20

// Envelope is the room kept in each message for what is not its items':
// protoactor's envelope (the type's name, the target's and sender's PIDs)
// and the message's own fields.
const Envelope = 64 << 10

// PerItem bounds what one item adds to a message beyond its bytes and its
// texts: its numbers (item, attempt, size, time taken, hops, the index of
// a failure or a move), varints of 10 bytes at most, and their keys.
const PerItem = 96

// TraceStateRoom bounds the bytes of the W3C tracestates of the tasks of
// one message, out of its Envelope: a task's traceparent, 55 bytes, fits
// beside its numbers in PerItem, but a tracestate is as long as the
// tracer that made it chose.
const TraceStateRoom = Envelope / 4

// ErrTooLarge is the error of an item whose encoding, or whose result's or
// next input's, is larger than one message may carry: each attempt at it
// fails so, and it ends a dead letter.
var ErrTooLarge = errors.New("too large for a message")

// Limit returns the bound of the messages one side sends the other: the
// smaller of its own bound and the one the peer named, or its own if the
// peer named none (0). A peer's bound under MinMessage counts as that.
func Limit(own int, peer uint64) int {
	if peer == 0 || peer >= uint64(own) {
		return own
	}
	return int(max(peer, MinMessage))
}

// Room returns how many bytes, its value's and its texts', one item may
// take in a message of at most limit bytes.
func Room(limit int) int { return limit - Envelope - PerItem }

// Cost returns what an item whose value has n bytes, with texts of t bytes
// (an error, a tag, the tags of its steps), takes of a message.
func Cost(n, t int) int { return n + t + PerItem }

// TooLarge returns the error of item seq, whose what ("item", "result of
// item", "next input of item") takes size bytes, over room.
func TooLarge(what string, seq uint64, size, room int) error {
	return fmt.Errorf("remote: the %s %d is %d bytes encoded, over the %d bytes one message may carry (MaxMessage less %d): %w",
		what, seq, size, room, Envelope+PerItem, ErrTooLarge)
}
