package confirm

// Waiting returns how many Waits of b wait for an answer.
func Waiting(b *Batch) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiters
}
