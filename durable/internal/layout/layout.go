// Package layout holds the JetStream configurations of a durable queue:
// those of its streams (the items', the dead letters') and of the consumer
// every process that runs a chain on it shares.
package layout

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ConsumerName is the durable consumer every process running a chain on a
// queue shares, so that each item goes to one of them.
const ConsumerName = "chain"

// Stream is the configuration of the stream name, which keeps what is
// published on subject with retention r, in files, with replicas copies,
// and refuses a message whose ID it has had within dedupe.
func Stream(name, subject string, r jetstream.RetentionPolicy, replicas int, dedupe time.Duration) jetstream.StreamConfig {
	return jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Retention: r,
		Storage: jetstream.FileStorage, Replicas: replicas, Duplicates: dedupe}
}

// Consumer is the configuration of the consumer of the items on subject:
// each acknowledged explicitly within lease, at most held of them
// unacknowledged, with replicas copies of its state.
func Consumer(subject string, lease time.Duration, held, replicas int) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       ConsumerName,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       lease,
		MaxDeliver:    -1, // attempts are counted by the queue, to send the last to the dead letters
		MaxAckPending: held,
		FilterSubject: subject,
		// As many copies as the stream's, and said: a consumer left to
		// inherit them has as many, but its configuration says 0.
		Replicas: replicas,
	}
}
