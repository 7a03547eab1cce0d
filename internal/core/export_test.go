package core

// PullForTest grants the agent behind m demand for n more values, as the
// stage after it does.
func PullForTest[I any](m *Member[I], n int) { m.pullVia(n, nil) }

// RunningForTest counts the agent's workers that have not returned.
func RunningForTest[I, V any](h *Agent[I, V]) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

// WorkersForTest counts the worker goroutines the agent has ever started.
func WorkersForTest[I, V any](h *Agent[I, V]) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.workers
}
