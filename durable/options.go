package durable

// Option changes how [Consume] runs. Without any, Consume runs until its
// context ends, fetching [DefaultFetch] items at a time.
type Option func(*options)

// options are Consume's settings.
type options struct {
	untilEmpty bool
	fetch      int
}

// WithUntilEmpty makes Consume end once the queue holds nothing but what
// its chain holds: then it closes the chain, which drains. Items held by
// other processes are waited for, since they come back if those die.
// Items the chain fails go back to the queue, for the next run.
func WithUntilEmpty() Option { return func(o *options) { o.untilEmpty = true } }

// WithFetchSize sets how many items Consume asks the queue for at once,
// at least 1 (Consume returns an ErrConfig otherwise); default
// [DefaultFetch]. Items fetched and not yet posted are held too: they
// count in the re-work after a crash.
func WithFetchSize(n int) Option { return func(o *options) { o.fetch = n } }

// DefaultFetch is how many items Consume asks the queue for at once.
const DefaultFetch = 256
