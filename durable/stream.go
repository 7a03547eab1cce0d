package durable

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// consumerName is the durable consumer every process running a chain on a
// queue shares, so that each item goes to one of them.
const consumerName = "chain"

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
		if why := tooFewServers(err, redact(q.url), q.replicas); why != "" {
			return invalid("replicas %d: %s (%s: %v)", q.replicas, why, what, err)
		}
		if q.srv != nil {
			return fmt.Errorf("%w: %s: %s: %v", ErrStore, q.dir, what, err)
		}
		return fmt.Errorf("%w: %s: %s: %v", ErrUnreachable, redact(q.url), what, err)
	}
	q.stream, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:       q.cfg.Name,
		Subjects:   []string{q.items},
		Retention:  jetstream.WorkQueuePolicy,
		Storage:    jetstream.FileStorage,
		Replicas:   q.replicas,
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
		Replicas:   q.replicas,
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
		Replicas: q.replicas,
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
