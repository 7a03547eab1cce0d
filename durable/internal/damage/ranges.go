package damage

import (
	"cmp"
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

// Held returns the sequences from first to last but those deleted: what
// a stream whose state says so holds. It is empty if last < first.
func Held(first, last uint64, deleted []uint64) Ranges {
	if last < first || first == 0 {
		return Ranges{}
	}
	return Ranges{{first, last}}.Minus(Of(deleted))
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
