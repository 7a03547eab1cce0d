// Package seqs holds sets of stream sequences as ranges: what a damaged
// store lost (package damage), what a run acknowledged (package crashes).
// Sequences come mostly in runs, so a set of a million is a few ranges.
package seqs

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Ranges is a set of sequences, as ranges from First to Last, in order,
// apart and not touching.
type Ranges []Range

// Range is the sequences from First to Last.
type Range struct {
	First uint64 `json:"f"`
	Last  uint64 `json:"l"`
}

// Of returns the sequences seqs, in any order, as ranges.
func Of(seqs []uint64) Ranges {
	s := slices.Clone(seqs)
	slices.Sort(s)
	var out Ranges
	for _, q := range s {
		if n := len(out); n > 0 && q <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, q)
			continue
		}
		out = append(out, Range{q, q})
	}
	return out
}

// Minus returns the sequences of r not in o.
func (r Ranges) Minus(o Ranges) Ranges {
	out := Ranges{}
	j := 0
	for _, x := range r {
		for ; j < len(o) && o[j].Last < x.First; j++ {
		}
		first := x.First
		for k := j; k < len(o) && o[k].First <= x.Last; k++ {
			if o[k].First > first {
				out = append(out, Range{first, o[k].First - 1})
			}
			first = max(first, o[k].Last+1)
		}
		if first <= x.Last && first >= x.First {
			out = append(out, Range{first, x.Last})
		}
	}
	return out
}

// Union returns the sequences of r or o.
func (r Ranges) Union(o Ranges) Ranges {
	all := slices.Concat(r, o)
	slices.SortFunc(all, func(a, b Range) int { return cmp.Compare(a.First, b.First) })
	var out Ranges
	for _, x := range all {
		if n := len(out); n > 0 && x.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, x.Last)
			continue
		}
		out = append(out, x)
	}
	return out
}

// Len returns how many sequences r holds.
func (r Ranges) Len() uint64 {
	var n uint64
	for _, x := range r {
		n += x.Last - x.First + 1
	}
	return n
}

// maxShown is how many ranges String shows.
const maxShown = 8

// String returns r as "1-5, 9, 12-40", the first maxShown ranges and how
// many more there are.
func (r Ranges) String() string {
	var parts []string
	for i, x := range r {
		if i == maxShown {
			parts = append(parts, "and "+strconv.Itoa(len(r)-maxShown)+" ranges more")
			break
		}
		s := strconv.FormatUint(x.First, 10)
		if x.Last > x.First {
			s += "-" + strconv.FormatUint(x.Last, 10)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Has reports whether r holds seq.
func (r Ranges) Has(seq uint64) bool {
	i, found := slices.BinarySearchFunc(r, seq, func(x Range, seq uint64) int {
		switch {
		case x.Last < seq:
			return -1
		case x.First > seq:
			return 1
		}
		return 0
	})
	return found && i < len(r)
}

// Add returns r with seq in it (0 is no sequence, and is not added).
// Sequences added in order cost an append at most.
func (r Ranges) Add(seq uint64) Ranges {
	if seq == 0 {
		return r
	}
	if n := len(r); n > 0 && r[n-1].Last < seq {
		if r[n-1].Last+1 == seq {
			r[n-1].Last = seq
			return r
		}
		return append(r, Range{seq, seq})
	}
	i, _ := slices.BinarySearchFunc(r, seq, func(x Range, seq uint64) int {
		if x.Last < seq {
			return -1
		}
		return 1
	})
	switch {
	case i < len(r) && r[i].First <= seq:
		return r // in already
	case i > 0 && r[i-1].Last+1 == seq && i < len(r) && r[i].First == seq+1:
		r[i-1].Last = r[i].Last
		return slices.Delete(r, i, i+1)
	case i > 0 && r[i-1].Last+1 == seq:
		r[i-1].Last = seq
		return r
	case i < len(r) && r[i].First == seq+1:
		r[i].First = seq
		return r
	}
	return slices.Insert(r, i, Range{seq, seq})
}

// Above returns r without the sequences up to floor.
func (r Ranges) Above(floor uint64) Ranges {
	i := 0
	for i < len(r) && r[i].Last <= floor {
		i++
	}
	r = slices.Delete(r, 0, i)
	if len(r) > 0 && r[0].First <= floor {
		r[0].First = floor + 1
	}
	return r
}

// AppendText appends r to b as "1-5 7 9-12", which Parse reads.
func (r Ranges) AppendText(b []byte) []byte {
	for i, x := range r {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, x.First, 10)
		if x.Last != x.First {
			b = append(b, '-')
			b = strconv.AppendUint(b, x.Last, 10)
		}
	}
	return b
}

// Parse reads ranges as AppendText writes them, in any order, and
// returns them with r's; on a range it cannot read, it returns those
// before it, and an error naming it.
func (r Ranges) Parse(s string) (Ranges, error) {
	var read Ranges
	for f := range strings.FieldsSeq(s) {
		firsts, lasts, ranged := strings.Cut(f, "-")
		first, err := strconv.ParseUint(firsts, 10, 64)
		last := first
		if err == nil && ranged {
			last, err = strconv.ParseUint(lasts, 10, 64)
		}
		if err != nil || first == 0 || last < first {
			return r.Union(read), fmt.Errorf("bad range %q", f)
		}
		read = append(read, Range{first, last})
	}
	return r.Union(read), nil
}
