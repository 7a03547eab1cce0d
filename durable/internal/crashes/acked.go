package crashes

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// spans is a set of stream sequences, as sorted spans that neither
// overlap nor touch: the items a queue that keeps its acknowledged items
// acknowledged above a floor. Acknowledgements come mostly in the
// stream's order, so the set is a few spans, however many items.
type spans []span

// span holds the sequences from lo to hi, both in.
type span struct{ lo, hi uint64 }

// has reports whether seq is in s.
func (s spans) has(seq uint64) bool {
	i, found := slices.BinarySearchFunc(s, seq, func(sp span, seq uint64) int {
		switch {
		case sp.hi < seq:
			return -1
		case sp.lo > seq:
			return 1
		}
		return 0
	})
	return found && i < len(s)
}

// add returns s with seq in it.
func (s spans) add(seq uint64) spans {
	if seq == 0 {
		return s
	}
	if n := len(s); n > 0 && s[n-1].hi < seq {
		// The common case: after every sequence in s.
		if s[n-1].hi+1 == seq {
			s[n-1].hi = seq
			return s
		}
		return append(s, span{seq, seq})
	}
	i, _ := slices.BinarySearchFunc(s, seq, func(sp span, seq uint64) int {
		if sp.hi < seq {
			return -1
		}
		return 1
	})
	switch {
	case i < len(s) && s[i].lo <= seq:
		return s // in already
	case i > 0 && s[i-1].hi+1 == seq && i < len(s) && s[i].lo == seq+1:
		s[i-1].hi = s[i].hi
		return slices.Delete(s, i, i+1)
	case i > 0 && s[i-1].hi+1 == seq:
		s[i-1].hi = seq
		return s
	case i < len(s) && s[i].lo == seq+1:
		s[i].lo = seq
		return s
	}
	return slices.Insert(s, i, span{seq, seq})
}

// above returns s without the sequences up to floor.
func (s spans) above(floor uint64) spans {
	i := 0
	for i < len(s) && s[i].hi <= floor {
		i++
	}
	s = slices.Delete(s, 0, i)
	if len(s) > 0 && s[0].lo <= floor {
		s[0].lo = floor + 1
	}
	return s
}

// ackedLine begins a line of the run file that lists spans acknowledged.
const ackedLine = "= "

// appendLine appends to b a line of the run file that lists s, or
// nothing for none.
func (s spans) appendLine(b []byte) []byte {
	if len(s) == 0 {
		return b
	}
	b = append(b, ackedLine...)
	for i, sp := range s {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, sp.lo, 10)
		if sp.hi != sp.lo {
			b = append(b, '-')
			b = strconv.AppendUint(b, sp.hi, 10)
		}
	}
	return append(b, '\n')
}

// parseSpans adds to s the spans of a line that appendLine wrote, less
// its ackedLine, and returns it.
func parseSpans(s spans, line string) (spans, error) {
	for f := range strings.FieldsSeq(line) {
		los, his, ranged := strings.Cut(f, "-")
		lo, err := strconv.ParseUint(los, 10, 64)
		hi := lo
		if err == nil && ranged {
			hi, err = strconv.ParseUint(his, 10, 64)
		}
		if err != nil || lo == 0 || hi < lo {
			return s.normal(), fmt.Errorf("bad span %q", f)
		}
		s = append(s, span{lo, hi})
	}
	return s.normal(), nil
}

// normal returns s sorted, its overlapping and touching spans merged.
func (s spans) normal() spans {
	slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	out := s[:0]
	for _, sp := range s {
		if n := len(out); n > 0 && sp.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, sp.hi)
			continue
		}
		out = append(out, sp)
	}
	return out
}
