package claim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Store is a queue's bucket of items stored apart, made as the first of
// them is stored, with as many replicas as the queue's streams. Its
// methods are safe for concurrent use: producers store while the sink
// deletes and the feeder reads.
type Store struct {
	js       jetstream.JetStream
	bucket   string
	replicas int

	mu  sync.Mutex
	obs jetstream.ObjectStore // nil until the bucket is made or found
}

// New returns the store of the bucket named bucket, reached with js.
func New(js jetstream.JetStream, bucket string, replicas int) *Store {
	return &Store{js: js, bucket: bucket, replicas: replicas}
}

// Bucket returns the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

// open returns the bucket, making it if make is set, and otherwise
// returning jetstream.ErrBucketNotFound if it does not exist.
func (s *Store) open(ctx context.Context, make bool) (jetstream.ObjectStore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.obs != nil {
		return s.obs, nil
	}
	var err error
	if make {
		s.obs, err = s.js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: s.bucket,
			Description: "the payloads of a durable queue's large items", Storage: jetstream.FileStorage, Replicas: s.replicas})
	} else {
		s.obs, err = s.js.ObjectStore(ctx, s.bucket)
	}
	return s.obs, err
}

// Put stores data, the bytes of the item of key, as a new object, and
// returns its reference once the servers have it all. An error means
// that no object is left: the servers refused it (the limits of their
// storage, say), or could not be reached.
func (s *Store) Put(ctx context.Context, key string, data []byte) (Ref, error) {
	r := Ref{Bucket: s.bucket, Object: Name(key), Size: len(data), Sum: sha256.Sum256(data)}
	obs, err := s.open(ctx, true)
	if err == nil {
		_, err = obs.Put(ctx, jetstream.ObjectMeta{Name: r.Object}, bytes.NewReader(data))
	}
	if err != nil {
		return r, fmt.Errorf("storing the item of key %q (%d bytes) apart, in bucket %s: %w", key, len(data), s.bucket, err)
	}
	return r, nil
}

// Load returns the bytes of the item of key whose message has headers h
// and data: data itself if h names no object, and otherwise the object's
// bytes, checked against the reference. An error matching ErrRef,
// ErrMissing or ErrDigest is for good, and names the object and its
// digest; any other may pass.
func (s *Store) Load(ctx context.Context, key string, h nats.Header, data []byte) ([]byte, error) {
	r, ok, err := Of(h, s.bucket, key)
	if !ok || err != nil {
		return data, err
	}
	obs, err := s.open(ctx, false)
	if err == nil {
		data, err = read(ctx, obs, r)
	}
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrObjectNotFound) {
		err = ErrMissing
	}
	if err != nil {
		return nil, fmt.Errorf("the payload of item %q, object %s of bucket %s (%d bytes, SHA-256 %x): %w", key, r.Object, r.Bucket, r.Size, r.Sum, err)
	}
	return data, nil
}

// read reads the object r names from obs, no further than its size, and
// checks its digest.
func read(ctx context.Context, obs jetstream.ObjectStore, r Ref) ([]byte, error) {
	res, err := obs.Get(ctx, r.Object)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	info, err := res.Info()
	if err != nil {
		return nil, err
	}
	if info.Size != uint64(r.Size) {
		return nil, fmt.Errorf("%w: the object holds %d bytes", ErrDigest, info.Size)
	}
	data := make([]byte, r.Size)
	if _, err := io.ReadFull(res, data); err != nil {
		if errors.Is(err, jetstream.ErrDigestMismatch) {
			err = ErrDigest
		}
		return nil, fmt.Errorf("reading it: %w", err)
	}
	if sum := sha256.Sum256(data); sum != r.Sum {
		return nil, fmt.Errorf("%w: the object's bytes have SHA-256 %x", ErrDigest, sum)
	}
	return data, nil
}

// Release deletes the object that headers h, of a message of the item of
// key, name, if any: call it only once no message names the object (its
// item's acknowledgement confirmed, or its message refused). An object
// that cannot be deleted is left to [Store.Sweep].
func (s *Store) Release(ctx context.Context, key string, h nats.Header) {
	if r, ok, err := Of(h, s.bucket, key); ok && err == nil {
		_ = s.delete(ctx, r.Object)
	}
}

// delete deletes the object name, and the marker of its deletion, so
// that the bucket keeps nothing of it.
func (s *Store) delete(ctx context.Context, name string) error {
	obs, err := s.open(ctx, false)
	if err != nil {
		return err
	}
	if err := obs.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return err
	}
	return s.forget(ctx, name)
}

// forget purges the marker the Object Store leaves of a deleted object.
func (s *Store) forget(ctx context.Context, name string) error {
	st, err := s.js.Stream(ctx, "OBJ_"+s.bucket)
	if err != nil {
		return err
	}
	meta := "$O." + s.bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(name))
	return st.Purge(ctx, jetstream.WithPurgeSubject(meta))
}

// Gone reports whether st certainly holds no message of sequence seq: a
// payload missing for a message that is gone went with its item's
// acknowledgement, by another process that held it.
func Gone(ctx context.Context, st jetstream.Stream, seq uint64) bool {
	_, err := st.GetMsg(ctx, seq)
	return errors.Is(err, jetstream.ErrMsgNotFound)
}
