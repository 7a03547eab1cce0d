package master

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// outcomes decodes what a worker's tasks came to and hands it to the book,
// with the slots the worker has free again.
func (l *link[I, O]) outcomes(id book.WorkerID, m *wire.Outcomes) {
	out, ok := decode[O](m, l.cfg.Decode, l.addr(id), l.cfg.WorkError)
	if !ok {
		l.node.Refuse(l.cfg.Name, fmt.Sprintf("malformed outcomes from worker %d", id))
		return
	}
	if len(out) > 0 || m.Ask > 0 {
		l.post(agent.Event[book.Outcomes[O]]{Value: book.Outcomes[O]{Worker: id, Outcomes: out, Asked: int(m.Ask)}})
	}
}

// decode decodes the outcomes m brings from the worker at addr, a failed
// one's error made by workError, or reports false if m is malformed.
func decode[O any](m *wire.Outcomes, decodeValue func(data []byte, v any) error, addr string, workError func(addr, text string) error) ([]book.Outcome[O], bool) {
	n := len(m.Items)
	if len(m.Attempts) != n || len(m.Sizes) != n || len(m.Failed) != len(m.Errors) || len(m.Took) != 0 && len(m.Took) != n {
		return nil, false
	}
	out := make([]book.Outcome[O], n)
	var failed map[uint32]string
	if len(m.Failed) > 0 {
		failed = make(map[uint32]string, len(m.Failed))
		for k, i := range m.Failed {
			failed[i] = m.Errors[k]
		}
	}
	if !wire.Fit(m.Sizes, m.Values) {
		return nil, false
	}
	off := 0
	for i, item := range m.Items {
		end := off + int(m.Sizes[i])
		data := m.Values[off:end:end]
		off = end
		o := &out[i]
		o.Item, o.Attempt = item, int(m.Attempts[i])
		if len(m.Took) > 0 {
			o.Took = time.Duration(max(m.Took[i], 0))
		}
		if text, bad := lookup(failed, uint32(i)); bad {
			o.Err = workError(addr, text)
		} else if err := decodeValue(data, &o.Value); err != nil {
			o.Err = fmt.Errorf("remote: decoding the result of item %d: %w", item, err)
		}
	}
	return out, true
}

// lookup returns the error text of outcome i in failed, if there is one:
// most messages have no failure, and no map to look in.
func lookup(failed map[uint32]string, i uint32) (string, bool) {
	if failed == nil {
		return "", false
	}
	text, ok := failed[i]
	return text, ok
}
