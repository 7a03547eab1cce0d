package adaptive

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// Stage returns an adaptive agent as one stage of a chain (see package
// compose): it runs work on at most the limit its controller chooses and
// passes each result's value on, in input order unless cfg says Unordered.
// A failed item is not passed on: it is counted in [Status] (Failed), and
// the first failure is the stage's error. It returns an error naming the
// setting when cfg is out of range or work is nil (errors.Is(err,
// ErrConfig)).
func Stage[In, Out any](cfg Config, work parallel.Work[In, Out]) (agent.Stage[In, Out], error) {
	sp, err := spec(cfg, work)
	if err != nil {
		return agent.Stage[In, Out]{}, err
	}
	return agent.MapOut(agent.NewStage(sp), value[Out]), nil
}

// value is a result's value, if the work succeeded.
func value[Out any](r parallel.Result[Out]) (Out, bool) { return r.Value, r.Err == nil }
