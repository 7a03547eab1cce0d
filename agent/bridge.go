package agent

import "github.com/evolvekit/evolve/internal/bridge"

// The hooks through which the machinery under internal/ reaches what this
// package keeps unexported; see package bridge for why they exist.
func init() {
	bridge.Runtime = func(rt any) *bridge.Parts { return &rt.(*Runtime).parts }
	bridge.StageOf = func(s any) any { return s.(interface{ inside() any }).inside() }
	bridge.SetStage = func(dst, impl any) { dst.(interface{ hold(any) }).hold(impl) }
	bridge.LoadOf = func(v any) (any, bool) {
		l, ok := v.(interface{ load() Load })
		if !ok {
			return nil, false
		}
		return l.load(), true
	}
}
