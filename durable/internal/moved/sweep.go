package moved

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// Sweep purges the states under prefix in stream st whose item's message
// is gone: a crash between an item's acknowledgement and the purge of its
// state leaves one, which nothing reads again, as no item has its
// sequence again. It reports whether a state may be left, true if it
// could not tell. It costs a request, and one for each state; call it as
// an embedded queue opens, while no other process reaches its stream.
func Sweep(ctx context.Context, st jetstream.Stream, prefix string) bool {
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(prefix+"*"))
	if err != nil {
		return true
	}
	left := false
	for subject := range info.State.Subjects {
		seq, err := strconv.ParseUint(strings.TrimPrefix(subject, prefix), 10, 64)
		if err == nil && gone(ctx, st, seq) && Drop(ctx, st, subject) == nil {
			continue
		}
		left = true
	}
	return left
}

// gone reports whether stream st holds no message of sequence seq.
func gone(ctx context.Context, st jetstream.Stream, seq uint64) bool {
	_, err := st.GetMsg(ctx, seq)
	return errors.Is(err, jetstream.ErrMsgNotFound)
}
