package core

// PullForTest grants the agent behind m demand for n more values, as the
// stage after it does.
func PullForTest[I any](m *Member[I], n int) { m.pullVia(n, nil) }
