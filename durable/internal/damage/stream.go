package damage

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// maxDeleted bounds the gaps in a stream whose sequences StateOf lists:
// the servers list each gap.
const maxDeleted = 50_000

// StateOf returns what stream s holds: its items (on subject items) and
// messages, the sequences it holds (unless it has more than maxDeleted
// gaps), and those NATS says it lost.
func StateOf(ctx context.Context, s jetstream.Stream, items string) (State, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return State{}, err
	}
	listed := info.State.NumDeleted <= maxDeleted
	if info, err = s.Info(ctx, jetstream.WithSubjectFilter(items), jetstream.WithDeletedDetails(listed)); err != nil {
		return State{}, err
	}
	// As NATS recovers a block it cannot read at all, its count of a
	// subject's messages may stay what it was.
	st := State{Items: min(info.State.Subjects[items], info.State.Msgs), Msgs: info.State.Msgs}
	if listed {
		st.Held = Held(info.State.FirstSeq, info.State.LastSeq, info.State.Deleted)
	}
	if info.State.Lost != nil {
		st.Lost = info.State.Lost.Msgs
	}
	return st, nil
}

// Unreadable reads the headers of every message of stream, whose
// subjects are subjects and which holds what now says, and returns the
// sequences it could not read, and how many of them are items (on
// subject items): NATS skips a record it cannot read. It reads through a
// consumer of its own, which it deletes; on a work queue, no other may
// be.
func Unreadable(ctx context.Context, js jetstream.JetStream, stream string, subjects []string, items string, now State) (uint64, Ranges, error) {
	if len(now.Held) == 0 {
		return 0, nil, nil
	}
	c, err := js.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{AckPolicy: jetstream.AckExplicitPolicy,
		MaxAckPending: -1, HeadersOnly: true, FilterSubjects: subjects, InactiveThreshold: time.Minute})
	if err != nil {
		return 0, nil, err
	}
	defer js.DeleteConsumer(context.WithoutCancel(ctx), stream, c.CachedInfo().Name)
	last := now.Held[len(now.Held)-1].Last
	var read Ranges
	var readItems uint64
	for {
		// Every message is in the store already: a fetch takes what is
		// there, without waiting for more.
		batch, err := c.FetchNoWait(1000)
		if err != nil {
			return 0, nil, err
		}
		n := 0
		for m := range batch.Messages() {
			md, err := m.Metadata()
			if err != nil {
				return 0, nil, err
			}
			if seq, k := md.Sequence.Stream, len(read); k > 0 && seq == read[k-1].Last+1 {
				read[k-1].Last = seq
			} else {
				read = append(read, Range{First: seq, Last: seq})
			}
			if m.Subject() == items {
				readItems++
			}
			n++
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
			return 0, nil, err
		}
		if n == 0 || read[len(read)-1].Last >= last {
			break
		}
	}
	return now.Items - min(now.Items, readItems), now.Held.Minus(read), nil
}
