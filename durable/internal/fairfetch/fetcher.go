package fairfetch

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/evolvekit/evolve/durable/internal/keys"
	"github.com/evolvekit/evolve/durable/internal/layout"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Source hands out the messages of a queue's items.
type Source interface {
	// Take appends to dst up to n messages: those ready now if wait is 0,
	// and otherwise waiting at most wait for one. It may return messages
	// and an error both: the messages are to be used all the same.
	Take(ctx context.Context, dst []jetstream.Msg, n int, wait time.Duration) ([]jetstream.Msg, error)
}

// Plain takes messages from one consumer, in the stream's order: the
// source of a queue without keys. Leases, which must not be nil, holds
// each message it hands out until the message is let go of.
type Plain struct {
	Consumer jetstream.Consumer
	Leases   *Leases
}

// Take takes what the consumer has (see Source).
func (p Plain) Take(_ context.Context, dst []jetstream.Msg, n int, wait time.Duration) ([]jetstream.Msg, error) {
	var batch jetstream.MessageBatch
	var err error
	if wait == 0 {
		batch, err = p.Consumer.FetchNoWait(n)
	} else {
		// The server ends the fetch after wait, so that every message it
		// sent is in the batch; a context would end it here, and drop what
		// is on its way, until its lease ended.
		batch, err = p.Consumer.Fetch(n, jetstream.FetchMaxWait(wait))
	}
	if err != nil {
		return dst, err
	}
	from := len(dst)
	dst, err = drain(dst, batch)
	got := dst[from:]
	p.Leases.add(got, time.Now())
	for i, m := range got {
		got[i] = &held{Msg: m, leases: p.Leases}
	}
	return dst, err
}

// drain appends the messages of batch to dst, and returns its error but
// for the end of a fetch that found no more.
func drain(dst []jetstream.Msg, batch jetstream.MessageBatch) ([]jetstream.Msg, error) {
	for msg := range batch.Messages() {
		dst = append(dst, msg)
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, jetstream.ErrNoMessages) {
		return dst, err
	}
	return dst, nil
}

// Config is what a Fetcher needs of its queue.
type Config struct {
	JS     jetstream.JetStream
	Stream jetstream.Stream
	// Items is the subject of the items added without a key; those of key
	// k are on Subject(Items, k).
	Items string
	// Plain is the consumer of the items with no key; Consumer is the
	// configuration the consumer of a key's items takes after, with its
	// own name and filter.
	Plain    jetstream.Consumer
	Consumer jetstream.ConsumerConfig
	// Weights are the weights of the keys' tokens (see Token); Quantum the
	// fair queue's.
	Weights map[string]int
	Quantum time.Duration
	// Budget is the most messages the Fetcher holds fetched and not yet
	// handed out as a key's line starts, and half the most it ever holds
	// (see Book); Timeout bounds each request to the servers.
	Budget  int
	Timeout time.Duration
	// Leases holds each message the Fetcher fetches, in a line or handed
	// out, until it is let go of; New makes one if it is nil.
	Leases *Leases
}

// Open returns the Source of a queue's items: with keyed, a Fetcher of
// cfg, whose Weights are by key (not token), which is also returned;
// otherwise cfg.Plain in the stream's order.
func Open(cfg Config, keyed bool) (Source, *Fetcher, error) {
	if !keyed {
		return Plain{Consumer: cfg.Plain, Leases: cfg.Leases}, nil, nil
	}
	weights := make(map[string]int, len(cfg.Weights))
	for k, w := range cfg.Weights {
		weights[Token(k)] = w
	}
	cfg.Weights = weights
	f, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return f, f, nil
}

// Fetcher is a Source that hands out the items of each key in turn (see
// the package doc). Take is called by one goroutine; the messages it
// hands out may be let go of from any.
type Fetcher struct {
	cfg       Config
	mu        sync.Mutex // guards book, which the messages reach
	book      *Book[jetstream.Msg]
	leases    *Leases                       // cfg.Leases
	consumers map[string]jetstream.Consumer // by token; "" for no key
	counted   time.Time
	wants     []Want
}

// recount is how often a Fetcher counts the keys' items in the stream
// while it has items of some: a key that gets items meanwhile waits as
// long for its first turn.
const recount = 100 * time.Millisecond

// idle is how long the servers keep the consumer of a key nothing
// fetches from and of which no item is out (InactiveThreshold).
const idle = 5 * time.Minute

// New returns a Fetcher of the queue cfg describes.
func New(cfg Config) (*Fetcher, error) {
	book, err := NewBook[jetstream.Msg](cfg.Quantum, cfg.Weights, cfg.Budget, cfg.Budget)
	if err != nil {
		return nil, err
	}
	if cfg.Leases == nil {
		cfg.Leases = &Leases{}
	}
	return &Fetcher{cfg: cfg, book: book, leases: cfg.Leases, consumers: map[string]jetstream.Consumer{"": cfg.Plain}}, nil
}

// Token returns the token of key k in subjects and consumer names: the
// first 128 bits of its SHA-256, in hex, or "" for no key.
func Token(k string) string {
	if k == "" {
		return ""
	}
	return keys.Subject("", k)
}

// Subject returns the subject of the items of key k added on subject
// items with no key: items itself for no key, and items.<token> else.
func Subject(items, k string) string {
	if k == "" {
		return items
	}
	return items + "." + Token(k)
}

// TokenOf returns the token of the fair key of an item on subject, added
// on items with no key: "" for none.
func TokenOf(items, subject string) string {
	tok, _ := strings.CutPrefix(subject, items+".")
	if tok == subject {
		return ""
	}
	return tok
}

// consumerPrefix begins the names of the keys' consumers.
const consumerPrefix = "chain_"

// Take hands out up to n messages, the next in the keys' turns (see
// Source).
func (f *Fetcher) Take(ctx context.Context, dst []jetstream.Msg, n int, wait time.Duration) ([]jetstream.Msg, error) {
	dst, err := f.take(ctx, dst, n)
	if len(dst) > 0 || err != nil || wait == 0 {
		return dst, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return dst, ctx.Err()
	case <-t.C:
	}
	return f.take(ctx, dst, min(n, 1))
}

// take counts the keys' items if due, fetches what the book wants, and
// hands out up to n messages, fetching again from a key whose line runs
// low.
func (f *Fetcher) take(ctx context.Context, dst []jetstream.Msg, n int) ([]jetstream.Msg, error) {
	now := time.Now()
	f.mu.Lock()
	due := CountDue(now, f.counted, f.book.Len() == 0, recount)
	f.mu.Unlock()
	if due {
		ask, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
		stored, err := Count(ask, f.cfg.Stream, f.cfg.Items)
		cancel()
		if err != nil {
			return dst, err
		}
		f.counted = now
		f.mu.Lock()
		f.book.Count(stored)
		f.mu.Unlock()
	}
	if err := f.refill(ctx); err != nil {
		return dst, err
	}
	for range n {
		f.mu.Lock()
		k, msg, charge, ok := f.book.Pop()
		want := 0
		if ok {
			want = f.book.Want(k)
		}
		f.mu.Unlock()
		if !ok {
			break
		}
		dst = append(dst, &held{Msg: msg, leases: f.leases, f: f, key: k, charge: charge, start: time.Now()})
		if want > 0 {
			if err := f.fetch(ctx, Want{Key: k, N: want}); err != nil {
				return dst, err
			}
		}
	}
	return dst, nil
}

// refill fetches what the book wants, again while it wants more: a fetch
// that came back short left room for others. Each key fetched from either
// has its line, or is dry, so the rounds are as many as the keys at most.
func (f *Fetcher) refill(ctx context.Context) error {
	f.mu.Lock()
	rounds := f.book.Keys() + 1
	f.mu.Unlock()
	for range rounds {
		f.mu.Lock()
		f.wants = f.book.Wants(f.wants[:0])
		f.mu.Unlock()
		if len(f.wants) == 0 {
			return nil
		}
		for _, w := range f.wants {
			if err := f.fetch(ctx, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// fetch fetches what w wants and queues it in the book. A key whose
// consumer the servers removed (see idle), or that fails, is marked dry
// and made again at its next fetch; the error of making it is returned.
func (f *Fetcher) fetch(ctx context.Context, w Want) error {
	c, err := f.consumer(ctx, w.Key)
	if err != nil {
		return err
	}
	var got []jetstream.Msg
	batch, err := c.FetchNoWait(w.N)
	if err == nil {
		got, err = drain(nil, batch)
	}
	if err != nil && w.Key != "" {
		delete(f.consumers, w.Key)
	}
	f.leases.add(got, time.Now())
	f.mu.Lock()
	f.book.Fetched(w.Key, got, w.N)
	f.mu.Unlock()
	if err != nil && w.Key == "" {
		return err
	}
	return nil
}

// consumer returns the consumer of the items of key token k, making it
// if this Fetcher has not.
func (f *Fetcher) consumer(ctx context.Context, k string) (jetstream.Consumer, error) {
	if c, ok := f.consumers[k]; ok {
		return c, nil
	}
	cfg := f.cfg.Consumer
	cfg.Durable, cfg.Name = consumerPrefix+k, ""
	cfg.FilterSubject, cfg.FilterSubjects = f.cfg.Items+"."+k, nil
	cfg.InactiveThreshold = idle
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	c, err := f.cfg.JS.CreateOrUpdateConsumer(ctx, f.cfg.Stream.CachedInfo().Config.Name, cfg)
	if err != nil {
		return nil, err
	}
	f.consumers[k] = c
	return c, nil
}

// Drain hands back to the stream every message fetched and not handed
// out; the Fetcher is not used again.
func (f *Fetcher) Drain() {
	f.mu.Lock()
	msgs := f.book.Drain()
	f.mu.Unlock()
	for _, m := range msgs {
		f.leases.drop(m)
		_ = m.Nak()
	}
}

// done tells the book the item of key k, charged charge, is let go of,
// having started at start.
func (f *Fetcher) done(k string, charge time.Duration, start time.Time) {
	took := time.Since(start)
	f.mu.Lock()
	f.book.Done(k, charge, took)
	f.mu.Unlock()
}

// Count returns how many items the stream holds of each key token, ""
// for those added on items with no key.
func Count(ctx context.Context, s jetstream.Stream, items string) (map[string]int, error) {
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(items+".*"))
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(info.State.Subjects)+1)
	for subj, n := range info.State.Subjects {
		if tok, ok := strings.CutPrefix(subj, items+"."); ok && n > 0 {
			out[tok] = int(n)
		}
	}
	if info, err = s.Info(ctx, jetstream.WithSubjectFilter(items)); err != nil {
		return nil, err
	}
	if n := info.State.Subjects[items]; n > 0 {
		out[""] = int(n)
	}
	return out, nil
}

// Total returns the sum of counts.
func Total(counts map[string]int) int {
	n := 0
	for v := range maps.Values(counts) {
		n += v
	}
	return n
}

// DeleteConsumers deletes every consumer of stream s: each key's, and the
// queue's unless keepQueue (a queue that keeps its acknowledged items
// keeps its consumer's record of them).
func DeleteConsumers(ctx context.Context, s jetstream.Stream, keepQueue bool) error {
	names := s.ConsumerNames(ctx)
	var all []string
	for name := range names.Name() {
		if !keepQueue || name != layout.ConsumerName {
			all = append(all, name)
		}
	}
	if err := names.Err(); err != nil {
		return err
	}
	for _, name := range all {
		if err := s.DeleteConsumer(ctx, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return err
		}
	}
	return nil
}
