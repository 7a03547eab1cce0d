package durable

import (
	"crypto/tls"
	"fmt"
	"regexp"
	"time"

	"github.com/evolvekit/evolve/codec"
)

// Config says where a queue lives and how its items are leased. Exactly
// one of Dir and URL must be set; every other field's zero value is a
// sensible default.
type Config struct {
	// Name names the queue: its JetStream stream, the consumer every
	// process that runs a chain on it shares, and the stream of its dead
	// letters (Name + "_dead"). Letters, digits, '-' and '_'. Default
	// "evolve".
	Name string

	// Dir is where an embedded NATS server keeps the queue: the server
	// runs in this process, and the directory is created if it does not
	// exist. Only one process at a time may open a directory.
	Dir string
	// Listen, with Dir, also lets other processes reach the embedded
	// server, at this host:port (port 0 picks a free one; see
	// [Queue.URL]). By default the server listens on no port: only this
	// process reaches it. Off the loopback it requires TLS, or
	// AllowInsecure.
	Listen string
	// AllowInsecure lets Listen be an address off the loopback without
	// TLS.
	AllowInsecure bool
	// Sync makes the embedded server write every message and
	// acknowledgement through to the disk before it confirms it: a power
	// loss then loses nothing confirmed, at a large cost in speed. By
	// default the server syncs every two minutes, which a crash of the
	// process, not of the machine, survives. See the package doc.
	Sync bool

	// URL is a NATS server, or several separated by commas, that runs
	// JetStream: a cluster, when one machine is not enough.
	URL string
	// Replicas is how many servers of the cluster keep a copy of the
	// queue, its dead letters and its consumer, with URL (at most 5, and
	// no more than the cluster has servers with JetStream; a server that
	// is not part of a cluster keeps one). Default 1.
	Replicas int
	// Creds is a NATS credentials file, with URL: a user's JWT and
	// seed, as nsc writes them. The file is read each time the client
	// connects, reconnections included.
	Creds string
	// User and Password authenticate with URL.
	User, Password string
	// TLS is the TLS configuration: with URL, to reach the servers (a
	// tls.Config with RootCAs, and Certificates for mutual TLS); with
	// Listen, the embedded server's own (Certificates, and ClientCAs to
	// require client certificates).
	TLS *tls.Config
	// ConnectTimeout bounds how long Open waits for the servers at URL,
	// or for the embedded server to start. Default [DefaultConnectTimeout].
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
	// so does a process that dies holding it at a URL, or, embedded, one
	// it kills (see the package doc). Default [DefaultMaxAttempts].
	MaxAttempts int
	// Dedupe is the window within which adding an item with the same key
	// again is not a second item. Default [DefaultDedupe].
	Dedupe time.Duration
	// MaxHeld bounds the items handed to the processes of the queue and
	// not yet acknowledged, all of them together. Default
	// [DefaultMaxHeld].
	MaxHeld int

	// Codec turns items into bytes and back. Default codec.JSON.
	Codec codec.Codec
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
	case c.Dir == "" && c.URL == "":
		return invalid("one of Dir (an embedded server) and URL (a NATS server) is required")
	case c.Dir != "" && c.URL != "":
		return invalid("Dir and URL are both set: a queue is either embedded or at a URL")
	case c.Name != "" && !names.MatchString(c.Name):
		return invalid("name %q must be letters, digits, '-' and '_'", c.Name)
	case c.Listen != "" && c.Dir == "":
		return invalid("listen needs Dir: it is the embedded server's address")
	case c.Sync && c.Dir == "":
		return invalid("sync is the embedded server's; a server at a URL syncs as it is configured")
	case c.URL == "" && (c.Creds != "" || c.User != "" || c.Password != ""):
		return invalid("credentials (Creds, User, Password) go with URL")
	case c.Replicas < 0 || c.Replicas > 5:
		return invalid("replicas must be 1 to 5, got %d", c.Replicas)
	case c.Replicas > 1 && c.URL == "":
		return invalid("replicas %d need a cluster at URL: an embedded server keeps one copy", c.Replicas)
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
	}
	return nil
}

// withDefaults fills in the zero settings.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.Lease == 0 {
		c.Lease = DefaultLease
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Dedupe == 0 {
		c.Dedupe = DefaultDedupe
	}
	if c.MaxHeld == 0 {
		c.MaxHeld = DefaultMaxHeld
	}
	if c.Codec == nil {
		c.Codec = codec.JSON
	}
	return c
}

// invalid returns an ErrConfig saying what is wrong.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}
