package agent

// Adjust sends the agent behind h a [Set] message carrying c, for a change of
// settings while it runs (a new limit, a new rate). Agent packages wrap it in
// typed methods that validate c first. It returns [ErrClosed] once the agent
// has stopped or failed, and delivers the change after Close too (to an
// agent still draining, say); it does not wait for the change to take effect.
func Adjust[C, I, V any](h *Handle[I, V], c C) error {
	select {
	case <-h.gone:
		return ErrClosed
	default:
	}
	if !h.post(Set[C]{Value: c}) {
		return ErrClosed
	}
	return nil
}
