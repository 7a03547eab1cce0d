// Package moved keeps in a queue's stream the state of each item a move
// took on, so that an item handed out again after a crash goes on from
// there rather than from its first input.
//
// The state of the item of stream sequence seq is a message on its own
// subject ([Subject]), which the queue's consumer does not take: each
// move publishes it with a rollup ([Header]), which purges the one before
// in the same write, so a crash leaves the old state or the new one,
// never both nor neither. The item's own message stays in the queue,
// untouched, key and all, until the sink acknowledges it; then its state
// is purged ([Drop]). A state a crash left after its item's message went
// names a sequence no item has again, and is never read.
package moved

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The headers of a state: the tag the item moved to, and the moves it
// has made in all.
const (
	HeaderTag   = "Evolve-Move-Tag"
	HeaderMoves = "Evolve-Moves"
)

// Subject returns the subject of the state of the item of stream sequence
// seq, under prefix (the queue's, ending with a dot).
func Subject(prefix string, seq uint64) string { return prefix + strconv.FormatUint(seq, 10) }

// Header returns the headers of a state whose item moved to tag, having
// made moves moves in all: a rollup of its subject, which leaves the
// stream only this state of the item.
func Header(tag string, moves int) nats.Header {
	return nats.Header{
		jetstream.MsgRollup: {jetstream.MsgRollupSubject},
		HeaderTag:           {tag},
		HeaderMoves:         {strconv.Itoa(moves)},
	}
}

// State is the last state recorded of an item: its headers and bytes,
// the tag it moved to and the moves it has made.
type State struct {
	Header nats.Header
	Data   []byte
	Tag    string
	Moves  int
}

// Find returns the state on subject in stream st, and false if there is
// none.
func Find(ctx context.Context, st jetstream.Stream, subject string) (State, bool, error) {
	m, err := st.GetLastMsgForSubject(ctx, subject)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, err
	}
	s, err := Read(m.Header, m.Data)
	return s, err == nil, err
}

// Read returns the state of headers h and bytes data, or an error naming
// the header that is wrong.
func Read(h nats.Header, data []byte) (State, error) {
	n, err := strconv.Atoi(h.Get(HeaderMoves))
	if err != nil || n < 0 {
		return State{}, fmt.Errorf("a moved state's %s header %q is not a count of moves", HeaderMoves, h.Get(HeaderMoves))
	}
	return State{Header: h, Data: data, Tag: h.Get(HeaderTag), Moves: n}, nil
}

// Drop purges the state on subject in stream st, if any.
func Drop(ctx context.Context, st jetstream.Stream, subject string) error {
	return st.Purge(ctx, jetstream.WithPurgeSubject(subject))
}

// Any reports whether stream st holds a state under prefix.
func Any(ctx context.Context, st jetstream.Stream, prefix string) (bool, error) {
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(prefix+"*"))
	if err != nil {
		return false, err
	}
	return len(info.State.Subjects) > 0, nil
}
