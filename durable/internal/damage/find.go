package damage

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Find returns what stream s, open, whose items are on subject items,
// lost since rec was recorded (nil if the last run did not close cleanly:
// a record of another stream, or of one made anew, counts as none): what
// NATS says it lost, and, if a block file changed since and readAll, the
// messages NATS holds but cannot read, read one by one on subjects (see
// Unreadable). It reports whether the stream lost anything.
func Find(ctx context.Context, js jetstream.JetStream, s jetstream.Stream, rec *Record, items string, subjects []string, readAll bool) (Report, bool, error) {
	now, err := StateOf(ctx, s, items)
	if err != nil {
		return Report{}, false, fmt.Errorf("reading the state of the queue's stream: %v", err)
	}
	info := s.CachedInfo()
	if rec != nil && (rec.Name != info.Config.Name || !rec.Made.Equal(info.Created)) {
		rec = nil
	}
	rep, lost := Compare(rec, now)
	if rec == nil || !rec.Changed || !readAll {
		return rep, lost, nil
	}
	n, seqs, err := Unreadable(ctx, js, info.Config.Name, subjects, items, now)
	if err != nil {
		return Report{}, false, fmt.Errorf("reading the queue's stream: %v", err)
	}
	if len(seqs) > 0 {
		rep.Add(n, seqs)
		lost = true
	}
	return rep, lost, nil
}

// RecordOf returns what a clean close of stream s, whose items are on
// subject items, leaves beside its store for the next open to compare
// with, but the block files, which only the server's shutdown settles.
func RecordOf(ctx context.Context, s jetstream.Stream, items string) (*Record, error) {
	st, err := StateOf(ctx, s, items)
	if err != nil {
		return nil, err
	}
	info := s.CachedInfo()
	return &Record{Name: info.Config.Name, Made: info.Created, Items: st.Items, Msgs: st.Msgs, Held: st.Held}, nil
}
