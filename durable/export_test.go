package durable

import (
	"context"
	"maps"
	"slices"

	"github.com/evolvekit/evolve/durable/internal/moved"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Crash stops q as a crash of its process would: the connection and the
// embedded server end, and nothing q holds is handed back.
func Crash[T any](q *Queue[T]) {
	q.closed.Store(true)
	q.shut()
}

// LastItem returns the stream sequence of the last item added to q
// without a fair key.
func LastItem[T any](q *Queue[T]) (uint64, error) {
	m, err := q.stream.GetLastMsgForSubject(context.Background(), q.items)
	if err != nil {
		return 0, err
	}
	return m.Sequence, nil
}

// PutMoved records v as the moved state of the item of key and stream
// sequence seq, having moved moves times, last to tag, as Queue.Moved does.
func PutMoved[T any](q *Queue[T], seq uint64, key string, v T, tag string, moves int) error {
	data, err := q.encode(key, &v)
	if err != nil {
		return err
	}
	_, err = q.js.PublishMsg(context.Background(), &nats.Msg{Subject: moved.Subject(q.moved, seq), Data: data, Header: moved.Header(tag, moves)})
	return err
}

// Acknowledged removes the message of stream sequence seq from q's
// stream, as the acknowledgement of its item does, and nothing else.
func Acknowledged[T any](q *Queue[T], seq uint64) error {
	return q.stream.DeleteMsg(context.Background(), seq)
}

// MovedStates returns the subjects of the moved states q's stream holds.
func MovedStates[T any](q *Queue[T]) ([]string, error) {
	info, err := q.stream.Info(context.Background(), jetstream.WithSubjectFilter(q.moved+"*"))
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(info.State.Subjects)), nil
}
