// Package claim keeps a durable queue's large items apart from their
// messages (the claim-check pattern): an item whose bytes are more than
// a message may carry is stored in the Object Store of the queue's NATS
// servers, in a bucket of the queue's own, and its message carries, in
// the header [Header], a reference ([Ref]) that names the object and the
// SHA-256 of the item's bytes. A message without the header is as it was:
// its data are the item's bytes.
//
// The rule that keeps references from dangling: an object is stored
// before the message that names it is published, and deleted only once
// no message of the queue or of its dead letters names it, that is after
// the acknowledgement of its item was confirmed, or by [Store.Sweep],
// which deletes the objects that no message names. What a crash leaves
// between the two steps is an object no message names, never a message
// whose object is gone.
//
// Whatever a message says is checked before it is believed: a reference
// names an object of the queue's bucket and of its item's key, or it is
// [ErrRef]; an object's bytes are read no further than the size the
// reference says, and must have its digest, or they are [ErrDigest].
package claim

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/evolvekit/evolve/durable/internal/keys"
	"github.com/nats-io/nats.go"
)

// Header is the header of a message whose item is stored apart: its
// value is a [Ref].
const Header = "Evolve-Payload"

// The errors of an item whose payload cannot be read back, for good.
var (
	// ErrRef is a reference that cannot be parsed, or names an object
	// that is not its item's.
	ErrRef = errors.New("bad payload reference")
	// ErrMissing is an object that is not in the bucket.
	ErrMissing = errors.New("payload missing")
	// ErrDigest is an object whose bytes are not those its reference
	// names: another size or another SHA-256.
	ErrDigest = errors.New("payload digest mismatch")
)

// Ref is a reference to an item stored apart: the bucket and the object
// that hold its bytes, their number and their SHA-256.
type Ref struct {
	Bucket string
	Object string
	Size   int
	Sum    [sha256.Size]byte
}

// String returns the reference as the header carries it:
// "bucket=B object=O size=N sha256=HEX".
func (r Ref) String() string {
	return fmt.Sprintf("bucket=%s object=%s size=%d sha256=%s", r.Bucket, r.Object, r.Size, hex.EncodeToString(r.Sum[:]))
}

// names are the bucket and object names a reference may hold.
var names = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// Parse reads a reference from v, as String writes it, or returns an
// ErrRef saying what is wrong with it.
func Parse(v string) (Ref, error) {
	f := strings.Fields(v)
	var r Ref
	if len(f) != 4 {
		return r, fmt.Errorf("%w %q: want 4 fields, got %d", ErrRef, v, len(f))
	}
	var vals [4]string
	for i, name := range [4]string{"bucket=", "object=", "size=", "sha256="} {
		val, ok := strings.CutPrefix(f[i], name)
		if !ok {
			return r, fmt.Errorf("%w %q: field %d is not %s", ErrRef, v, i+1, name)
		}
		vals[i] = val
	}
	r.Bucket, r.Object = vals[0], vals[1]
	if !names.MatchString(r.Bucket) || !names.MatchString(r.Object) {
		return r, fmt.Errorf("%w %q: a bucket or object name must be 1 to 256 letters, digits, '-' and '_'", ErrRef, v)
	}
	size, err := strconv.Atoi(vals[2])
	if err != nil || size < 0 {
		return r, fmt.Errorf("%w %q: size must be a number of bytes", ErrRef, v)
	}
	r.Size = size
	if len(vals[3]) != 2*sha256.Size {
		return r, fmt.Errorf("%w %q: sha256 must be 64 hex digits", ErrRef, v)
	}
	if _, err := hex.Decode(r.Sum[:], []byte(vals[3])); err != nil {
		return r, fmt.Errorf("%w %q: sha256 must be 64 hex digits", ErrRef, v)
	}
	return r, nil
}

// Of returns the reference h carries, if any, checking that it names an
// object of bucket that belongs to the item of key (see [Name]).
func Of(h nats.Header, bucket, key string) (Ref, bool, error) {
	v := h.Get(Header)
	if v == "" {
		return Ref{}, false, nil
	}
	r, err := Parse(v)
	switch {
	case err != nil:
		return r, true, err
	case r.Bucket != bucket:
		return r, true, fmt.Errorf("%w %q: the queue's bucket is %s", ErrRef, v, bucket)
	case !strings.HasPrefix(r.Object, owner(key)):
		return r, true, fmt.Errorf("%w %q: the object is not of the item of key %q", ErrRef, v, key)
	}
	return r, true, nil
}

// Name returns a new object name for the item of key: the first 128 bits
// of the key's SHA-256 and 96 random bits, in hex, so that a reference
// can name only objects of its own key, and two items never share one.
func Name(key string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return owner(key) + hex.EncodeToString(b[:])
}

// owner is the prefix of the names of the objects of key.
func owner(key string) string { return keys.Subject("", key) + "_" }
