package claim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRefRoundTrips(t *testing.T) {
	r := Ref{Bucket: "q_payloads", Object: Name("k1"), Size: 7, Sum: sha256.Sum256([]byte("payload"))}
	got, err := Parse(r.String())
	require.NoError(t, err)
	assert.Equal(t, r, got)
	h := nats.Header{}
	h.Set(Header, r.String())
	_, ok, err := Of(h, "q_payloads", "k1")
	assert.True(t, ok)
	assert.NoError(t, err)
	_, ok, err = Of(nats.Header{}, "q_payloads", "k1")
	assert.False(t, ok, "a message without the header carries its item")
	assert.NoError(t, err)
}

func TestOfRefusesWhatIsNotTheItems(t *testing.T) {
	r := Ref{Bucket: "q_payloads", Object: Name("k1"), Size: 7}
	h := nats.Header{}
	h.Set(Header, r.String())
	_, _, err := Of(h, "other_payloads", "k1")
	assert.ErrorIs(t, err, ErrRef, "another bucket")
	_, _, err = Of(h, "q_payloads", "k2")
	assert.ErrorIs(t, err, ErrRef, "another key's object")
	assert.NotEqual(t, Name("k1"), Name("k1"), "two items never share an object")
}

func TestParseSaysWhatIsWrong(t *testing.T) {
	good := Ref{Bucket: "b", Object: "o", Size: 1}.String()
	for _, tc := range []struct{ v, says string }{
		{"", "want 4 fields"},
		{"bucket=b object=o size=1", "want 4 fields"},
		{strings.Replace(good, "object=", "objet=", 1), "field 2 is not object="},
		{strings.Replace(good, "bucket=b", "bucket=a.b", 1), "letters, digits"},
		{strings.Replace(good, "size=1", "size=-1", 1), "size must be"},
		{strings.Replace(good, "size=1", "size=99999999999999999999", 1), "size must be"},
		{good[:len(good)-2], "64 hex digits"},
		{good + "00", "64 hex digits"},
		{strings.Replace(good, "sha256=00", "sha256=zz", 1), "64 hex digits"},
	} {
		_, err := Parse(tc.v)
		assert.ErrorIs(t, err, ErrRef, tc.v)
		assert.ErrorContains(t, err, tc.says, tc.v)
	}
}

func TestInline(t *testing.T) {
	n, err := Inline(1<<20, 0)
	assert.NoError(t, err)
	assert.Equal(t, DefaultInline, n, "NATS's default max payload")
	n, err = Inline(64<<20, 0)
	assert.NoError(t, err)
	assert.Equal(t, DefaultInline, n, "a megabyte at most by default")
	n, err = Inline(8<<10, 0)
	assert.NoError(t, err)
	assert.Equal(t, 7<<10, n, "an eighth kept for headers")
	n, err = Inline(64<<20, 8<<20)
	assert.NoError(t, err)
	assert.Equal(t, 8<<20, n)
	_, err = Inline(1<<20, 1<<20)
	assert.ErrorContains(t, err, "leaves the headers no room")
}

// FuzzParse: whatever a header says, Parse neither panics nor accepts
// what String would not write.
func FuzzParse(f *testing.F) {
	f.Add(Ref{Bucket: "q_payloads", Object: Name("k"), Size: 5 << 20}.String())
	f.Add("bucket= object= size= sha256=")
	f.Add("bucket=b object=o size=+1 sha256=" + strings.Repeat("A", 64))
	f.Fuzz(func(t *testing.T, v string) {
		r, err := Parse(v)
		if err != nil {
			if !errors.Is(err, ErrRef) {
				t.Fatalf("Parse(%q) = %v, not an ErrRef", v, err)
			}
			return
		}
		again, err := Parse(r.String())
		if err != nil || again != r {
			t.Fatalf("Parse(%q) = %v, which does not read back: %v, %v", v, r, again, err)
		}
	})
}

// jetStream starts a NATS server with JetStream on 127.0.0.1, and returns
// a client of it; both end with the test.
func jetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true}
	srv, err := server.NewServer(opts)
	require.NoError(t, err)
	srv.Start()
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	require.True(t, srv.ReadyForConnections(10*time.Second))
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

func TestStoreReadsBackWhatItKeptAndChecksIt(t *testing.T) {
	ctx := context.Background()
	js := jetStream(t)
	s := New(js, "q_payloads", 1)
	data := bytes.Repeat([]byte("0123456789"), 50_000)

	_, err := s.Load(ctx, "k", header(Ref{Bucket: "q_payloads", Object: Name("k")}), nil)
	assert.ErrorIs(t, err, ErrMissing, "no bucket yet")

	r, err := s.Put(ctx, "k", data)
	require.NoError(t, err)
	got, err := s.Load(ctx, "k", header(r), nil)
	require.NoError(t, err)
	assert.Equal(t, data, got)
	plain, err := s.Load(ctx, "k", nats.Header{}, []byte("inline"))
	require.NoError(t, err)
	assert.Equal(t, "inline", string(plain), "a message without a reference carries its item")

	obs, err := js.ObjectStore(ctx, "q_payloads")
	require.NoError(t, err)
	scribbled := bytes.Clone(data)
	scribbled[12345] ^= 1
	_, err = obs.PutBytes(ctx, r.Object, scribbled)
	require.NoError(t, err)
	_, err = s.Load(ctx, "k", header(r), nil)
	assert.ErrorIs(t, err, ErrDigest)
	assert.ErrorContains(t, err, r.Object, "names the object")
	assert.ErrorContains(t, err, "SHA-256 "+string(hexOf(r.Sum)), "names the digest")
	_, err = obs.PutBytes(ctx, r.Object, data[:100])
	require.NoError(t, err)
	_, err = s.Load(ctx, "k", header(r), nil)
	assert.ErrorIs(t, err, ErrDigest, "another size")

	s.Release(ctx, "other key", header(r))
	_, err = obs.GetInfo(ctx, r.Object)
	assert.NoError(t, err, "a reference of another key deletes nothing")
	s.Release(ctx, "k", header(r))
	_, err = obs.GetInfo(ctx, r.Object, jetstream.GetObjectInfoShowDeleted())
	assert.ErrorIs(t, err, jetstream.ErrObjectNotFound, "nothing left of it, not even a marker")
	_, err = s.Load(ctx, "k", header(r), nil)
	assert.ErrorIs(t, err, ErrMissing)
}

func TestSweepDeletesWhatNoMessageNames(t *testing.T) {
	ctx := context.Background()
	js := jetStream(t)
	s := New(js, "q_payloads", 1)
	n, err := s.Sweep(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "no bucket")

	items, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "q", Subjects: []string{"q.items"}, Retention: jetstream.WorkQueuePolicy})
	require.NoError(t, err)
	dead, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "q_dead", Subjects: []string{"q.dead"}})
	require.NoError(t, err)
	named := map[string]Ref{}
	for _, key := range []string{"waits", "dead", "orphan", "acked"} {
		r, err := s.Put(ctx, key, []byte("payload of "+key))
		require.NoError(t, err)
		named[key] = r
	}
	for i := range 3000 { // more than a fetch of the sweep
		_, err := js.PublishMsg(ctx, &nats.Msg{Subject: "q.items", Data: []byte{byte(i)}})
		require.NoError(t, err)
	}
	_, err = js.PublishMsg(ctx, &nats.Msg{Subject: "q.items", Header: header(named["waits"])})
	require.NoError(t, err)
	_, err = js.PublishMsg(ctx, &nats.Msg{Subject: "q.dead", Header: header(named["dead"])})
	require.NoError(t, err)
	s.Release(ctx, "acked", header(named["acked"]))

	n, err = s.Sweep(ctx, Named{Stream: items}, Named{Stream: dead})
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the orphan")
	for key, r := range named {
		_, err := s.Load(ctx, key, header(r), nil)
		if key == "waits" || key == "dead" {
			assert.NoError(t, err, "%s is named by a message", key)
		} else {
			assert.ErrorIs(t, err, ErrMissing, key)
		}
	}
	consumers := 0
	for range items.ConsumerNames(ctx).Name() {
		consumers++
	}
	assert.Zero(t, consumers, "the sweep's consumer is gone")
}

// header returns the headers of a message that names r.
func header(r Ref) nats.Header {
	h := nats.Header{}
	h.Set(Header, r.String())
	return h
}

// hexOf returns sum in hex.
func hexOf(sum [sha256.Size]byte) []byte {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(sum))
	for _, b := range sum {
		out = append(out, digits[b>>4], digits[b&15])
	}
	return out
}
