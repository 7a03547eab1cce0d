package rate

import "github.com/evolvekit/evolve/agent"

// Stage returns a rate agent as one stage of a chain (see package compose):
// it passes values on unchanged and in order, no faster than cfg's rate and
// burst allow. [Config.Cost] prices each value as it enters the stage: a
// value posted to a chain this stage heads is refused by Post with an
// [ErrCost]; one passed on by an earlier stage is dropped, counted, and
// reported by the chain's Wait. It returns an [ErrConfig] naming the field
// of cfg at fault.
func Stage[T any](cfg Config[T]) (agent.Stage[T, T], error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return agent.Stage[T, T]{}, err
	}
	price := func(v T) (Item[T], error) { return itemFor(cfg.Cost, v, cfg.Burst) }
	return agent.MapIn(agent.NewStage(spec(cfg)), price), nil
}
