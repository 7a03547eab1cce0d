package parallel

import "fmt"

// Result is what the agent emits for one item: the item's position in the
// input and what its work returned. Err is nil for work that succeeded; for
// work that panicked it is an *agent.PanicError carrying the stack. Value is
// whatever the work returned, even alongside an error.
type Result[Out any] struct {
	// Seq is the item's position in the input, counted from 0.
	Seq   uint64
	Value Out
	Err   error
}

// result makes the Result of the item at seq.
func result[Out any](seq uint64, v Out, err error) Result[Out] {
	return Result[Out]{Seq: seq, Value: v, Err: err}
}

// value is a result's value, if the work succeeded.
func value[Out any](r Result[Out]) (Out, bool) { return r.Value, r.Err == nil }

// results returns the results of the batch f from what its Done carried,
// one per item, in order, with their Seqs, and how many of them failed. An
// item the Done carries no result for fails with its error, or with an
// error saying so.
func results[In, Out any](rs []Result[Out], err error, f flight[In]) ([]Result[Out], int) {
	if len(rs) == f.n {
		if failed, ok := numbered(rs, f.id); ok {
			return rs, failed
		}
	}
	out := make([]Result[Out], f.n)
	failed := 0
	for i := range out {
		seq := f.id + uint64(i)
		switch {
		case i < len(rs):
			out[i] = rs[i]
			out[i].Seq = seq
		case err != nil:
			out[i] = Result[Out]{Seq: seq, Err: err}
		default:
			out[i] = Result[Out]{Seq: seq, Err: fmt.Errorf("parallel: the batch from %d returned no result for item %d", f.id, seq)}
		}
		if out[i].Err != nil {
			failed++
		}
	}
	return out, failed
}

// numbered reports whether rs are numbered from seq on, and if so how
// many of them failed: one pass over the results for both.
func numbered[Out any](rs []Result[Out], seq uint64) (failed int, ok bool) {
	for i := range rs {
		r := &rs[i]
		if r.Seq != seq+uint64(i) {
			return 0, false
		}
		if r.Err != nil {
			failed++
		}
	}
	return failed, true
}
