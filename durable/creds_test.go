package durable_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/rate"
	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// testOperator is a NATS operator made for one test: it signs accounts,
// which sign users.
type testOperator struct {
	kp    nkeys.KeyPair
	claim *jwt.OperatorClaims
}

// newOperator makes an operator whose system account is sys.
func newOperator(t *testing.T, sys string) testOperator {
	t.Helper()
	kp, err := nkeys.CreateOperator()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	oc := jwt.NewOperatorClaims(pub)
	oc.Name = "test operator"
	oc.SystemAccount = sys
	token, err := oc.Encode(kp)
	if err != nil {
		t.Fatal(err)
	}
	claim, err := jwt.DecodeOperatorClaims(token)
	if err != nil {
		t.Fatal(err)
	}
	return testOperator{kp: kp, claim: claim}
}

// newAccount makes an account key pair and its JWT, signed by signer;
// with jetStream, its limits let it use JetStream without bounds.
func newAccount(t *testing.T, signer nkeys.KeyPair, name string, jetStream bool) (nkeys.KeyPair, string) {
	t.Helper()
	kp, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	ac := jwt.NewAccountClaims(pub)
	ac.Name = name
	if jetStream {
		ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	}
	token, err := ac.Encode(signer)
	if err != nil {
		t.Fatal(err)
	}
	return kp, token
}

// newCreds writes the credentials file of a new user the account
// signed, in a directory of the test, and returns its path.
func newCreds(t *testing.T, account nkeys.KeyPair, name string) string {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	uc := jwt.NewUserClaims(pub)
	uc.Name = name
	token, err := uc.Encode(account)
	if err != nil {
		t.Fatal(err)
	}
	seed, err := kp.Seed()
	if err != nil {
		t.Fatal(err)
	}
	creds, err := jwt.FormatUserConfig(token, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".creds")
	if err := os.WriteFile(path, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// publicKey is kp's public key.
func publicKey(t *testing.T, kp nkeys.KeyPair) string {
	t.Helper()
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// TestCredsFilesAreRefusedOrTaken runs a NATS server in operator mode,
// which trusts one operator and knows its accounts' JWTs: the creds file
// of a user of an account with JetStream opens a queue, which takes items
// and hands them all to a chain; the creds of a user whose account the
// server does not know, or another operator signed, get an ErrUnreachable
// saying the credentials were refused; a creds file that does not exist,
// or is not a credentials file, gets an ErrConfig naming it; a user of an
// account whose limits have no JetStream gets an ErrUnreachable saying so.
func TestCredsFilesAreRefusedOrTaken(t *testing.T) {
	sysKP, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	sysPub := publicKey(t, sysKP)
	op := newOperator(t, sysPub)
	resolver := &server.MemAccResolver{}
	sysJWT := func() string {
		ac := jwt.NewAccountClaims(sysPub)
		ac.Name = "SYS"
		token, err := ac.Encode(op.kp)
		if err != nil {
			t.Fatal(err)
		}
		return token
	}()
	if err := resolver.Store(sysPub, sysJWT); err != nil {
		t.Fatal(err)
	}
	appKP, appJWT := newAccount(t, op.kp, "APP", true)
	if err := resolver.Store(publicKey(t, appKP), appJWT); err != nil {
		t.Fatal(err)
	}
	plainKP, plainJWT := newAccount(t, op.kp, "PLAIN", false)
	if err := resolver.Store(publicKey(t, plainKP), plainJWT); err != nil {
		t.Fatal(err)
	}
	// An account the server knows the JWT of, but that an operator it
	// does not trust signed.
	other := newOperator(t, "")
	forgedKP, forgedJWT := newAccount(t, other.kp, "FORGED", true)
	if err := resolver.Store(publicKey(t, forgedKP), forgedJWT); err != nil {
		t.Fatal(err)
	}
	// An account the server has never heard of.
	unknownKP, _ := newAccount(t, op.kp, "UNKNOWN", true)

	srv := startServer(t, server.Options{TrustedOperators: []*jwt.OperatorClaims{op.claim}, SystemAccount: sysPub, AccountResolver: resolver})
	url := srv.ClientURL()

	for _, c := range []struct {
		what  string
		creds string
	}{
		{"a user of an account the server does not know", newCreds(t, unknownKP, "stranger")},
		{"a user of an account another operator signed", newCreds(t, forgedKP, "forger")},
	} {
		_, err := durable.Open[int](durable.Server{URL: url, Creds: c.creds}, durable.Config{ConnectTimeout: 2 * time.Second})
		if !errors.Is(err, durable.ErrUnreachable) || !strings.Contains(err.Error(), "refused the credentials") {
			t.Errorf("Open with the creds of %s = %v; want an ErrUnreachable saying the credentials were refused", c.what, err)
		}
	}
	missing := filepath.Join(t.TempDir(), "nobody.creds")
	garbage := filepath.Join(t.TempDir(), "garbage.creds")
	if err := os.WriteFile(garbage, []byte("not a credentials file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, says string
	}{
		{missing, "cannot be read"},
		{garbage, "holds no user seed"},
	} {
		_, err := durable.Open[int](durable.Server{URL: url, Creds: c.path}, durable.Config{ConnectTimeout: 2 * time.Second})
		if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Open with the creds file %s = %v; want an ErrConfig naming the file and saying it %s", c.path, err, c.says)
		}
	}
	// A user the server takes, of an account whose limits have no
	// JetStream: connected, but the queue's streams cannot be made.
	_, err = durable.Open[int](durable.Server{URL: url, Creds: newCreds(t, plainKP, "plain")}, durable.Config{ConnectTimeout: 2 * time.Second})
	if !errors.Is(err, durable.ErrUnreachable) || !strings.Contains(err.Error(), "JetStream not enabled") {
		t.Errorf("Open with the creds of an account without JetStream = %v; want an ErrUnreachable saying JetStream is not enabled", err)
	}

	q, err := durable.Open[int](durable.Server{URL: url, Creds: newCreds(t, appKP, "loader")}, durable.Config{})
	if err != nil {
		t.Fatalf("Open with the creds of a user of the account: %v", err)
	}
	defer q.Close()
	ctx := context.Background()
	const n = 100
	fill(ctx, t, q, n)
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	pass, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 1e6, Burst: 1000})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	chain, err := compose.Start(rt, pass, durable.Sink(q, func(it durable.Item[int]) error {
		seen[it.Key]++
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	for _, e := range keyed(n) {
		if seen[e.Key] != 1 {
			t.Errorf("key %s reached the sink %d times; want once", e.Key, seen[e.Key])
		}
	}
	if got, err := q.Len(ctx); err != nil || got != 0 {
		t.Errorf("Len after the run = %d, %v; want 0", got, err)
	}
}
