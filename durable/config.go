package durable

import (
	"cmp"
	"regexp"
	"time"

	"github.com/evolvekit/evolve/codec"
	"github.com/evolvekit/evolve/internal/errs"
	"github.com/evolvekit/evolve/internal/fair"
	"go.opentelemetry.io/otel/trace"
)

// Config holds a queue's settings that do not depend on its [Store]: its
// name, and how its items are leased, tried and encoded. The zero Config
// is a queue named "evolve" with every default below.
type Config struct {
	// Name names the queue: its JetStream stream, the consumer every
	// process that runs a chain on it shares, and the stream of its dead
	// letters (Name + "_dead"). Letters, digits, '-' and '_'. Default
	// "evolve".
	Name string

	// ConnectTimeout bounds how long Open waits for the servers of a
	// [Server], or for an [Embedded] one to start. Default
	// [DefaultConnectTimeout].
	ConnectTimeout time.Duration

	// Lease is how long a process may hold an item without a sign of life
	// before the queue hands it to another (JetStream's AckWait). A
	// process that runs a chain renews the lease of every item it holds
	// before it ends, so a lease bounds how long the items of a process
	// that died wait to be handed out again, not how long work may take.
	// Default [DefaultLease]; at least 100 ms.
	Lease time.Duration
	// MaxAttempts is how many times an item is handed out before it goes
	// to the dead letters: a chain that fails it spends an attempt, and
	// so does a process that dies holding it on a [Server], or, on an
	// [Embedded] server, one it kills (see the package doc). Default
	// [DefaultMaxAttempts].
	MaxAttempts int
	// Dedupe is the window, from an item's first add, within which adding
	// its key again is not a second item: whether the item waits or was
	// consumed, across restarts and crashes (see Keys in the package
	// doc). The queue keeps a marker of each item it hands out until the
	// window ends. Default [DefaultDedupe].
	Dedupe time.Duration
	// MaxHeld bounds the items handed to the processes of the queue and
	// not yet acknowledged, all of them together (with Key, those of each
	// fair key, and of no key). Default [DefaultMaxHeld].
	MaxHeld int

	// Codec turns items into bytes and back. Default codec.JSON.
	Codec codec.Codec
	// TracerProvider, when not nil, traces each item [Queue.Add] and
	// [Queue.AddMany] add with a span "publish <Name>.items" whose context
	// the item carries to the chain that takes it (see docs/traces.md).
	// Without one they carry the span of the context given to them, if any.
	TracerProvider trace.TracerProvider
	// MaxInline is the most bytes of an item, as the codec encodes it,
	// that its message carries; a larger item is stored apart, in the
	// Object Store of the queue's servers, and its message carries a
	// reference (see Large items in the package doc). Default a megabyte
	// less 8 KiB for headers, or less on servers that take smaller
	// messages; at most the servers' max payload less that room, or Open
	// returns an ErrConfig.
	MaxInline int

	// Key, if set, gives each item its fair key (a client, a tenant),
	// from the key it is added under ("" for none), and [Consume] then
	// fetches the items of the fair keys in turns, so that one key's long
	// backlog does not hold back another's few (see Fair keys in the
	// package doc). The dedupe key stays the item's key. Key runs in Add
	// and AddMany; set the same in every process of the queue. Nil: no
	// fair keys, and items are fetched in the order they were added.
	Key func(key string) string
	// Weights gives a fair key a share of its own against the others'
	// (a key absent weighs 1): each at least 1, or Open returns an
	// ErrConfig naming it.
	Weights map[string]int
	// Quantum is the work time a fair key is credited per unit of weight
	// on its turn. Default fair's DefaultQuantum, a millisecond.
	Quantum time.Duration
}

// The defaults of Config.
const (
	DefaultName           = "evolve"
	DefaultLease          = 5 * time.Second
	DefaultMaxAttempts    = 5
	DefaultDedupe         = 2 * time.Minute
	DefaultMaxHeld        = 65536
	DefaultConnectTimeout = 5 * time.Second
)

// names are the names a queue may have: JetStream's stream names, with no
// character that would split a subject.
var names = regexp.MustCompile(`^[A-Za-z0-9_-]{1,200}$`)

// validate reports the first setting out of range.
func (c Config) validate() error {
	switch {
	case c.Name != "" && !names.MatchString(c.Name):
		return invalid("name %q must be letters, digits, '-' and '_'", c.Name)
	case c.ConnectTimeout < 0:
		return invalid("connect timeout must not be negative, got %v", c.ConnectTimeout)
	case c.Lease < 0 || c.Lease > 0 && c.Lease < 100*time.Millisecond:
		return invalid("lease must be at least 100ms, got %v", c.Lease)
	case c.MaxAttempts < 0:
		return invalid("max attempts must not be negative, got %d", c.MaxAttempts)
	case c.Dedupe < 0:
		return invalid("dedupe must not be negative, got %v", c.Dedupe)
	case c.MaxHeld < 0:
		return invalid("max held must not be negative, got %d", c.MaxHeld)
	case c.MaxInline < 0:
		return invalid("max inline must not be negative, got %d", c.MaxInline)
	case c.Quantum < 0:
		return invalid("quantum must not be negative, got %v", c.Quantum)
	}
	for k, w := range c.Weights {
		if w < 1 {
			return invalid("weight of fair key %q must be at least 1, got %d", k, w)
		}
	}
	return nil
}

// withDefaults fills in the zero settings.
func (c Config) withDefaults() Config {
	c.Name, c.ConnectTimeout, c.Lease = cmp.Or(c.Name, DefaultName), cmp.Or(c.ConnectTimeout, DefaultConnectTimeout), cmp.Or(c.Lease, DefaultLease)
	c.MaxAttempts, c.Dedupe, c.MaxHeld = cmp.Or(c.MaxAttempts, DefaultMaxAttempts), cmp.Or(c.Dedupe, DefaultDedupe), cmp.Or(c.MaxHeld, DefaultMaxHeld)
	c.Quantum = cmp.Or(c.Quantum, fair.DefaultQuantum)
	if c.Codec == nil {
		c.Codec = codec.JSON
	}
	return c
}

// invalid returns an ErrConfig saying what is wrong.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "durable", format, args...)
}
