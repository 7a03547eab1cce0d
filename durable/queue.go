package durable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Queue is a durable queue of items of type T on NATS JetStream: a
// work-queue stream, whose items a process adds with [Queue.Add] and
// chains take with [Consume], from this process or others. Its methods
// are safe for concurrent use.
type Queue[T any] struct {
	cfg      Config
	srv      *server.Server // the embedded server, or nil
	nc       *nats.Conn
	js       jetstream.JetStream
	stream   jetstream.Stream
	consumer jetstream.Consumer
	items    string // the subject items are added on
	dead     string // the subject of the dead letters
	ledger   *ledger
	lock     *os.File // an embedded queue's lock on its directory, or nil
	crash    *crashes // an embedded queue's record of the runs that died, or nil

	mu     sync.Mutex
	closed bool
}

// consumerName is the durable consumer every process running a chain on a
// queue shares, so that each item goes to one of them.
const consumerName = "chain"

// Open opens the queue cfg says, creating it if it does not exist: with
// cfg.Dir, an embedded NATS server in this process keeps it in that
// directory; with cfg.URL, the NATS servers there do. It returns an
// ErrConfig for settings out of range, cfg.Replicas more than the servers
// at cfg.URL can keep, or a Creds file that cannot be read or holds no
// seed; an ErrStore for a directory that cannot be written or whose store
// cannot be opened; and an ErrUnreachable for servers that do not answer
// within cfg.ConnectTimeout or refuse the credentials.
//
// An embedded queue that opens hands out again at once the items a
// process held when it died (a crash of this process killed its server
// too): its consumer is made anew, and starts from the first item not
// acknowledged. With a queue at a URL they come back as their lease ends.
// An embedded queue also keeps, beside its store, a record of the runs
// that died, so that an item that kills its process every time goes to the
// dead letters (see the package doc).
func Open[T any](cfg Config) (*Queue[T], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	q := &Queue[T]{cfg: cfg, items: cfg.Name + ".items", dead: cfg.Name + ".dead", ledger: newLedger()}
	var err error
	if cfg.Dir != "" {
		if err := writable(cfg.Dir); err != nil {
			return nil, err
		}
		if q.lock, err = lockDir(cfg.Dir); err != nil {
			return nil, err
		}
		q.srv, q.nc, err = embedded(cfg)
		if err != nil {
			q.unlock()
		}
	} else {
		q.nc, err = connect(cfg)
	}
	if err != nil {
		return nil, err
	}
	if err := q.declare(); err != nil {
		q.shut()
		return nil, err
	}
	if q.srv != nil {
		info := q.stream.CachedInfo()
		if q.crash, err = openCrashes(cfg.Dir, info.Created, info.State.FirstSeq); err != nil {
			q.shut()
			return nil, err
		}
	}
	return q, nil
}

// declare creates or updates the queue's streams and consumer.
func (q *Queue[T]) declare() error {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	// A publish of AddMany whose confirmation the servers lost, as a
	// cluster changes leaders, fails after the connect timeout rather than
	// waiting for ever.
	js, err := jetstream.New(q.nc, jetstream.WithPublishAsyncTimeout(q.cfg.ConnectTimeout))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	q.js = js
	fail := func(what string, err error) error {
		if why := tooFewServers(err, redact(q.cfg.URL), q.cfg.Replicas); why != "" {
			return invalid("replicas %d: %s (%s: %v)", q.cfg.Replicas, why, what, err)
		}
		if q.srv != nil {
			return fmt.Errorf("%w: %s: %s: %v", ErrStore, q.cfg.Dir, what, err)
		}
		return fmt.Errorf("%w: %s: %s: %v", ErrUnreachable, redact(q.cfg.URL), what, err)
	}
	q.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:       q.cfg.Name,
		Subjects:   []string{q.items},
		Retention:  jetstream.WorkQueuePolicy,
		Storage:    jetstream.FileStorage,
		Replicas:   q.cfg.Replicas,
		Duplicates: q.cfg.Dedupe,
	})
	if err != nil {
		return fail("the queue's stream "+q.cfg.Name, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:       q.cfg.Name + "_dead",
		Subjects:   []string{q.dead},
		Retention:  jetstream.LimitsPolicy,
		Storage:    jetstream.FileStorage,
		Replicas:   q.cfg.Replicas,
		Duplicates: q.cfg.Dedupe,
	}); err != nil {
		return fail("the dead letters' stream "+q.cfg.Name+"_dead", err)
	}
	cc := jetstream.ConsumerConfig{
		Durable:       consumerName,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       q.cfg.Lease,
		MaxDeliver:    -1, // attempts are counted here, to send the last to the dead letters
		MaxAckPending: q.cfg.MaxHeld,
		FilterSubject: q.items,
		// As many copies as the stream's, and said: a consumer left to
		// inherit them has as many, but its configuration says 0.
		Replicas: q.cfg.Replicas,
	}
	if q.srv != nil {
		// Only this process reaches the server before Open returns, so any
		// item held was held by a process that died with it. The stream is
		// what the crash left for sure: the consumer's own state is written
		// apart from it, and may be behind it or ahead. A consumer made
		// anew on a work queue starts from its first message, that is from
		// every item not acknowledged, and hands them all out at once.
		if err := js.DeleteConsumer(ctx, q.cfg.Name, consumerName); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return fail("handing out again what a dead process held", err)
		}
	}
	q.consumer, err = js.CreateOrUpdateConsumer(ctx, q.cfg.Name, cc)
	if err != nil {
		return fail("the queue's consumer", err)
	}
	return nil
}

// The JetStream errors of a stream with more replicas than the servers
// can keep.
const (
	errCodeReplicasNotSupported = 10074 // the server is not clustered
	errCodeNoPeers              = 10005 // the cluster has too few servers
)

// tooFewServers says, if err is the servers at url refusing a stream for
// want of servers to keep its replicas, why, and otherwise returns "".
func tooFewServers(err error, url string, replicas int) string {
	var api *jetstream.APIError
	if !errors.As(err, &api) {
		return ""
	}
	switch api.ErrorCode {
	case errCodeReplicasNotSupported:
		return fmt.Sprintf("the server at %s is not part of a cluster, and keeps one copy: give the URL of a JetStream cluster, or Replicas 1", url)
	case errCodeNoPeers:
		return fmt.Sprintf("the cluster at %s has fewer than %d servers with JetStream to keep the copies", url, replicas)
	}
	return ""
}

// Add adds v to the queue under key, and returns once the queue has it:
// it is then in the store, and a chain will take it. Adding the same key
// again within Config.Dedupe adds nothing. It returns an ErrConfig for an
// empty key, an ErrCodec for a value the codec cannot encode, ctx.Err()
// if ctx ends first, and ErrClosed after Close.
func (q *Queue[T]) Add(ctx context.Context, key string, v T) error {
	data, err := q.encode(key, &v)
	if err != nil {
		return err
	}
	if _, err := q.js.Publish(ctx, q.items, data, jetstream.WithMsgID(key)); err != nil {
		return q.failed(ctx, err)
	}
	return nil
}

// Entry is an item to add, with its key.
type Entry[T any] struct {
	Key   string
	Value T
}

// AddMany adds entries as Add does, without waiting for each before
// sending the next: it returns once the queue has them all, or with the
// first error (the entries before it may have been added; adding them all
// again adds only those that were not). A confirmation the servers do not
// send within Config.ConnectTimeout is an error.
func (q *Queue[T]) AddMany(ctx context.Context, entries []Entry[T]) error {
	// At most addWindow entries are on their way at once: the server
	// confirms slowly when it syncs every write, and the client refuses to
	// queue without bound.
	acks := make([]jetstream.PubAckFuture, 0, min(len(entries), 2*addWindow))
	head := 0 // acks before it are confirmed
	confirmed := func(a jetstream.PubAckFuture) error {
		select {
		case <-a.Ok():
			return nil
		case err := <-a.Err():
			return q.failed(ctx, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for i := range entries {
		data, err := q.encode(entries[i].Key, &entries[i].Value)
		if err != nil {
			return err
		}
		if len(acks)-head == addWindow {
			if err := confirmed(acks[head]); err != nil {
				return err
			}
			if head++; head == addWindow {
				acks, head = append(acks[:0], acks[head:]...), 0
			}
		}
		a, err := q.js.PublishAsync(q.items, data, jetstream.WithMsgID(entries[i].Key))
		if err != nil {
			return q.failed(ctx, err)
		}
		acks = append(acks, a)
	}
	for _, a := range acks[head:] {
		if err := confirmed(a); err != nil {
			return err
		}
	}
	return nil
}

// addWindow is the most entries AddMany has on their way at once.
const addWindow = 1024

// encode checks key and encodes the value v points to.
func (q *Queue[T]) encode(key string, v *T) ([]byte, error) {
	if q.isClosed() {
		return nil, ErrClosed
	}
	if key == "" {
		return nil, invalid("an item needs a key")
	}
	data, err := q.cfg.Codec.Append(nil, v)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding the item of key %q: %v", ErrCodec, key, err)
	}
	return data, nil
}

// failed turns an error of a publish into the error Add returns.
func (q *Queue[T]) failed(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case q.isClosed(), errors.Is(err, nats.ErrConnectionClosed):
		return ErrClosed
	}
	return fmt.Errorf("durable: adding to queue %s: %w", q.cfg.Name, err)
}

// Len returns the number of items in the queue: added and not yet
// acknowledged (those chains hold included) nor sent to the dead letters.
func (q *Queue[T]) Len(ctx context.Context) (int, error) {
	info, err := q.stream.Info(ctx)
	if err != nil {
		return 0, err
	}
	return int(info.State.Msgs), nil
}

// DeadLen returns the number of items in the queue's dead letters.
func (q *Queue[T]) DeadLen(ctx context.Context) (int, error) {
	s, err := q.js.Stream(ctx, q.cfg.Name+"_dead")
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return int(info.State.Msgs), nil
}

// URL returns the address other processes reach the queue at: the
// embedded server's client URL when it listens (Config.Listen), the URL
// given otherwise, and "" for an embedded server that listens on no port.
func (q *Queue[T]) URL() string {
	if q.srv != nil {
		if q.cfg.Listen == "" {
			return ""
		}
		return q.srv.ClientURL()
	}
	return q.cfg.URL
}

// Name returns the queue's name.
func (q *Queue[T]) Name() string { return q.cfg.Name }

// Close hands back to the queue the items this process still holds, then
// closes the connection, and stops the embedded server, if any. Calling it
// again does nothing.
func (q *Queue[T]) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	q.mu.Unlock()
	for _, h := range q.ledger.drain() {
		_ = h.msg.Nak()
	}
	q.crash.close(true)
	q.shut()
	return nil
}

// shut drains the connection and stops the embedded server.
func (q *Queue[T]) shut() {
	q.crash.close(false)
	if q.nc != nil {
		_ = q.nc.Drain()
		q.nc.Close()
	}
	if q.srv != nil {
		q.srv.Shutdown()
		q.srv.WaitForShutdown()
	}
	q.unlock()
}

// unlock lets go of the directory's lock, if q holds it.
func (q *Queue[T]) unlock() {
	if q.lock != nil {
		q.lock.Close()
		q.lock = nil
	}
}

// isClosed reports whether Close was called.
func (q *Queue[T]) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}
