package grant

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Mismatch says a limit is kept already with another rate or burst than a
// process asked for: those it is kept with.
type Mismatch struct {
	Rate  float64
	Burst int
}

// Error says what the limit is kept with.
func (m *Mismatch) Error() string {
	return fmt.Sprintf("the limit is %v a second with bursts of %d", m.Rate, m.Burst)
}

// Open opens the key-value bucket named bucket, with replicas replicas,
// in which the limits of a queue are kept, and the limit named name in
// it, of r tokens a second with bursts of burst: the first process to
// open it makes it, with no share. A limit kept with other numbers is a
// *Mismatch.
func Open(ctx context.Context, js jetstream.JetStream, bucket string, replicas int, name string, r float64, burst int) (jetstream.KeyValue, error) {
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: bucket, History: 1, Storage: jetstream.FileStorage, Replicas: replicas,
	})
	if err != nil {
		return nil, err
	}
	_, err = kv.Create(ctx, name, Table{Rate: r, Burst: burst}.Encode())
	if err != nil && !errors.Is(err, jetstream.ErrKeyExists) {
		return nil, err
	}
	entry, err := kv.Get(ctx, name)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return kv, nil
	case err != nil:
		return nil, err
	}
	t, err := Decode(entry.Value())
	if err != nil {
		return nil, err
	}
	if t.Rate != r || t.Burst != burst {
		return nil, &Mismatch{Rate: t.Rate, Burst: t.Burst}
	}
	return kv, nil
}
