package durable

// Crash stops q as a crash of its process would: the connection and the
// embedded server end, and nothing q holds is handed back.
func Crash[T any](q *Queue[T]) {
	q.closed.Store(true)
	q.shut()
}
