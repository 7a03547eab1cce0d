package agent

// Stage is an agent described but not yet running, seen as one step of a
// chain: it takes items of type I and emits values of type O. Each agent
// package makes Stages with its Stage function; package compose links
// them, and starts them.
//
// A Stage is a value: each start runs new agents. Stages linked into one are
// a Stage too. The zero Stage is not usable: compose.Start refuses it.
type Stage[I, O any] struct {
	impl any // what internal/core keeps of the stage; nil for the zero Stage
}

func (s Stage[I, O]) inside() any    { return s.impl }
func (s *Stage[I, O]) hold(impl any) { s.impl = impl }
