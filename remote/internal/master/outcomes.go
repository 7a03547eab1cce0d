package master

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// outcomes decodes what a worker's tasks came to and hands it to the book:
// the moves first, then the outcomes, with the slots the worker has free
// again.
func (l *link[I, O]) outcomes(id book.WorkerID, m *wire.Outcomes) {
	addr := l.addr(id)
	out, moves, ok := decode[I, O](m, l.spare, l.cfg.Decode, addr, l.cfg.WorkError)
	if !ok {
		l.node.Refuse(l.cfg.Name, fmt.Sprintf("malformed outcomes from worker %d", id))
		return
	}
	if len(moves) > 0 {
		l.post(agent.Event[book.Moves[I]]{Value: book.Moves[I]{Worker: id, Addr: addr, Moves: moves}})
	}
	if len(out) > 0 || m.Ask > 0 {
		l.post(agent.Event[book.Outcomes[O]]{Value: book.Outcomes[O]{Worker: id, Addr: addr, Outcomes: out, Asked: int(m.Ask)}})
	}
}

// decode decodes the outcomes m brings from the worker at addr, a failed
// one's error made by workError, into a slice spare gives (nil: a new
// one), and its moves, or reports false if m is malformed. A move whose
// next input cannot be decoded is a failed outcome.
func decode[I, O any](m *wire.Outcomes, spare *Spare[O], decodeValue func(data []byte, v any) error, addr string, workError func(addr, text string) error) ([]book.Outcome[O], []book.Move[I], bool) {
	n := len(m.Items)
	if len(m.Attempts) != n || len(m.Sizes) != n || len(m.Failed) != len(m.Errors) || len(m.Moved) != len(m.Tags) ||
		len(m.Took) != 0 && len(m.Took) != n || len(m.Steps) != 0 && len(m.Steps) != n {
		return nil, nil, false
	}
	failed := indexed(m.Failed, m.Errors)
	moved := indexed(m.Moved, m.Tags)
	steps, ok := stepsOf(m, moved)
	if !ok || !wire.Fit(m.Sizes, m.Values) {
		return nil, nil, false
	}
	out := spare.get(n)
	var moves []book.Move[I]
	off := 0
	for i, item := range m.Items {
		end := off + int(m.Sizes[i])
		data := m.Values[off:end:end]
		off = end
		var took time.Duration
		if len(m.Took) > 0 {
			took = time.Duration(max(m.Took[i], 0))
		}
		var walked []string
		if steps != nil {
			walked = steps[i]
		}
		text, bad := lookup(failed, uint32(i))
		if tag, ok := lookup(moved, uint32(i)); ok && !bad {
			mv := book.Move[I]{Item: item, Attempt: int(m.Attempts[i]), Tag: tag, Steps: walked, Took: took}
			err := decodeValue(data, &mv.Next)
			if err == nil {
				moves = append(moves, mv)
				continue
			}
			bad, text = true, fmt.Sprintf("remote: decoding the next input of item %d: %v", item, err)
		}
		// Decoded in place: a value decoded into a variable of its own
		// would escape to the heap through decodeValue, one allocation an
		// item. The fields are set one by one in memory that is zeroed
		// (new, or cleared by Spare.Put), not copied there from a literal.
		out = out[:len(out)+1]
		o := &out[len(out)-1]
		o.Item, o.Attempt, o.Took, o.Steps = item, int(m.Attempts[i]), took, walked
		if bad {
			o.Err = workError(addr, text)
		} else if err := decodeValue(data, &o.Value); err != nil {
			o.Err = fmt.Errorf("remote: decoding the result of item %d: %w", item, err)
		}
	}
	return out, moves, true
}

// indexed maps each index in at to the text at the same place in texts,
// which is as long; nil if there is none, as for most messages.
func indexed(at []uint32, texts []string) map[uint32]string {
	if len(at) == 0 {
		return nil
	}
	m := make(map[uint32]string, len(at))
	for k, i := range at {
		m[i] = texts[k]
	}
	return m
}

// stepsOf returns the tags of the moves the worker made itself for each
// item of m, by index (nil if it made none for any), or reports false if
// they do not add up, or a tag, of a step or a move, is longer than a move
// may name. m's Steps are none or one per item.
func stepsOf(m *wire.Outcomes, moved map[uint32]string) ([][]string, bool) {
	for _, tag := range moved {
		if move.CheckTag(tag) != nil {
			return nil, false
		}
	}
	if len(m.Steps) == 0 {
		return nil, len(m.StepTags) == 0
	}
	out := make([][]string, len(m.Items))
	off := uint64(0)
	for i, n := range m.Steps {
		end := off + uint64(n)
		if end > uint64(len(m.StepTags)) {
			return nil, false
		}
		if n > 0 {
			out[i] = m.StepTags[off:end:end]
		}
		off = end
	}
	for _, tag := range m.StepTags {
		if move.CheckTag(tag) != nil {
			return nil, false
		}
	}
	return out, off == uint64(len(m.StepTags))
}

// lookup returns the text of outcome i in texts, if there is one: most
// messages have none, and no map to look in.
func lookup(texts map[uint32]string, i uint32) (string, bool) {
	if texts == nil {
		return "", false
	}
	text, ok := texts[i]
	return text, ok
}
