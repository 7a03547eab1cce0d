package buffer

import "github.com/evolvekit/evolve/agent"

// Stage returns a buffer agent as one stage of a chain (see package compose):
// it batches the items passed to it as cfg says, flushes each batch with
// flush, one at a time, and passes each flushed batch on. A batch whose flush
// fails is not passed on; the first failure is the stage's error. It returns
// an [ErrConfig] naming the field at fault when cfg is not valid or flush is
// nil.
func Stage[T any](cfg Config, flush Flush[T]) (agent.Stage[T, []T], error) {
	sp, err := spec(cfg, flush)
	if err != nil {
		return agent.Stage[T, []T]{}, err
	}
	return agent.NewStage(sp), nil
}
