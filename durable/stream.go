package durable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/fairfetch"
	"github.com/evolvekit/evolve/durable/internal/layout"
	"github.com/evolvekit/evolve/durable/internal/moved"
	"github.com/evolvekit/evolve/durable/internal/natserr"
	"github.com/evolvekit/evolve/durable/internal/retained"
	"github.com/nats-io/nats.go/jetstream"
)

// declare creates or updates the queue's streams and consumer.
func (q *Queue[T]) declare() error {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	js, err := jetstream.New(q.nc)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	q.js, q.claims = js, claim.New(js, q.cfg.Name+"_payloads", q.replicas)
	// AddMany's items and the markers are confirmed without a timer each:
	// the waits for them end after the connect timeout instead.
	if q.confirms, err = confirm.New(q.nc); err != nil {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	retention, err := q.retention(ctx, js)
	if err != nil {
		return err
	}
	// A stream made before keys had markers gains their subjects and TTLs
	// here; the servers refuse to turn TTLs off again.
	cfg := layout.Stream(q.cfg.Name, q.items, retention, q.replicas, q.cfg.Dedupe)
	// The items of fair keys are on a subject of each key's.
	cfg.Subjects, cfg.AllowMsgTTL = append(cfg.Subjects, q.keys+"*", q.items+".*", q.moved+"*"), true
	cfg.AllowRollup, cfg.AllowDirect = true, q.retain // a move's state replaces the one before; see retained.Len
	if q.stream, err = js.CreateOrUpdateStream(ctx, cfg); err != nil {
		return q.refused("the queue's stream "+q.cfg.Name, err)
	}
	if !q.stream.CachedInfo().Config.AllowMsgTTL {
		return q.refused("the queue's stream "+q.cfg.Name, errors.New("the servers keep no per-message TTL, which the queue's dedupe needs: NATS 2.11 or later"))
	}
	if q.resumes, err = moved.Any(ctx, q.stream, q.moved); err != nil {
		return q.refused("the queue's stream "+q.cfg.Name, err)
	}
	dead := q.cfg.Name + "_dead"
	if q.deadStream, err = js.CreateOrUpdateStream(ctx, layout.Stream(dead, q.dead, jetstream.LimitsPolicy, q.replicas, q.cfg.Dedupe)); err != nil {
		return q.refused("the dead letters' stream "+dead, err)
	}
	if q.srv != nil {
		// Only this process reaches the server before Open returns, so any
		// item held was held by a process that died with it. The stream is
		// what the crash left for sure: the consumer's own state is written
		// apart from it, and may be behind it or ahead. A consumer made
		// anew on a work queue starts from its first message, that is from
		// every item not acknowledged, and hands them all out at once, as
		// those of fair keys do (a queue that retains keeps its own: below).
		if err := fairfetch.DeleteConsumers(ctx, q.stream, q.retain); err != nil {
			return q.refused("handing out again what a dead process held", err)
		}
		if err := q.checkDamage(); err != nil {
			return err
		}
		// With no consumer yet, the states of items gone, then the objects
		// no message names, are found: a crash left them (see Large items
		// in the package doc, and docs/moves.md); those missed, next Open.
		sweep, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
		q.resumes = moved.Sweep(sweep, q.stream, q.moved)
		_, _ = q.claims.Sweep(sweep, claim.Named{Stream: q.stream, From: retained.From(sweep, q.stream, q.retain)}, claim.Named{Stream: q.deadStream})
		cancel()
	}
	q.gate = moved.NewGate(q.resumes, time.Second)
	if q.consumer, err = js.CreateOrUpdateConsumer(ctx, q.cfg.Name, layout.Consumer(q.items, q.cfg.Lease, q.cfg.MaxHeld, q.replicas)); err != nil {
		return q.refused("the queue's consumer", err)
	}
	if q.retain && q.srv != nil {
		// What a dead process held comes back at once: the consumer starts
		// again after the acknowledgement floor it had written. What it had
		// acknowledged above its floor comes back too, and the record of
		// this process's runs knows it (see package crashes): Consume
		// acknowledges it again without handing it out.
		if _, err := js.ResetConsumer(ctx, q.cfg.Name, layout.ConsumerName); err != nil {
			return q.refused("the queue's consumer", err)
		}
	}
	return nil
}

// retention decides whether q retains its items (see Queue.retain), and
// returns its stream's retention.
func (q *Queue[T]) retention(ctx context.Context, js jetstream.JetStream) (jetstream.RetentionPolicy, error) {
	var made *jetstream.StreamInfo
	switch s, err := js.Stream(ctx, q.cfg.Name); {
	case err == nil:
		made = s.CachedInfo()
	case !errors.Is(err, jetstream.ErrStreamNotFound):
		return 0, q.refused("the queue's stream "+q.cfg.Name, err)
	}
	retain, refused := retained.Retains(made, q.cfg.Key != nil)
	if refused {
		return 0, invalid("queue %s was made without fair keys, and keeps its items until their window ends: it cannot take Config.Key (give a queue with fair keys a Name of its own)", q.cfg.Name)
	}
	q.retain = retain
	return retained.Retention(retain), nil
}

// refused returns the error of Open when the servers refuse what, with
// err: an ErrConfig for replicas they cannot keep, and otherwise an
// ErrStore for an embedded server, an ErrUnreachable for a Server.
func (s *site) refused(what string, err error) error {
	if why := natserr.TooFewServers(err, natserr.Redact(s.url), s.replicas); why != "" {
		return invalid("replicas %d: %s (%s: %v)", s.replicas, why, what, err)
	}
	if s.srv != nil {
		return fmt.Errorf("%w: %s: %s: %v", ErrStore, s.dir, what, err)
	}
	return fmt.Errorf("%w: %s: %s: %v", ErrUnreachable, natserr.Redact(s.url), what, err)
}
