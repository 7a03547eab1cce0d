package main

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
	"github.com/evolvekit/evolve/examples/mailer/internal/starved"
	"github.com/evolvekit/evolve/internal/testing/certs"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// mainEnv, set in a process's environment, makes the test binary run the
// program instead of the tests. A master the tests run starts its workers
// as this binary with -worker first, which runs the program too.
const mainEnv = "MAILER_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) != "" || (len(os.Args) > 1 && (os.Args[1] == "-worker" || os.Args[1] == "-role")) {
		os.Exit(mainCode(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// programBound is how long a program the tests run may take: one still
// running then is killed (and, on Linux, its children with it), and the
// test fails.
const programBound = 2 * time.Minute

// program runs the program in a process of its own with args, and returns
// its stdout, its stderr and its exit status.
func program(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), programBound)
	defer cancel()
	cmd := command(ctx, args...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the program did not end within %v\nstdout:\n%s\nstderr:\n%s", programBound, &out, &errs)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out.String(), errs.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errs.String(), 0
}

// command returns the command that runs the program with args, killed
// once ctx ends.
func command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	return cmd
}

// deadAddress returns a loopback address nobody listens at.
func deadAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func TestBadFlagsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n must be between 1 and 10000000, got 0"},
		{[]string{"-n", "many"}, `invalid value "many" for flag -n: parse error`},
		{[]string{"-rate", "0"}, "-rate must be above 0 and at most 1000000, got 0"},
		{[]string{"-rate", "NaN"}, "-rate must be above 0 and at most 1000000, got NaN"},
		{[]string{"-workers", "-1"}, "-workers must be between 0 and 64, got -1"},
		{[]string{"-slots", "0"}, "-slots must be between 1 and 1000, got 0"},
		{[]string{"-n", "100", "-kill-after", "100"}, "-kill-after must be between 0 and -n - 1 (99), got 100"},
		{[]string{"-workers", "0", "-kill-after", "5"}, "-kill-after kills a worker the master started: it needs -workers 1 or more"},
		{[]string{"-join-after", "-1"}, "-join-after must be between 0 and -n - 1 (19999), got -1"},
		{[]string{"-wait", "0s"}, "-wait must be above 0, got 0s"},
		{[]string{"-listen", "0.0.0.0:0"}, `-listen: remote: address "0.0.0.0:0" must name a host to answer at, such as 127.0.0.1`},
		{[]string{"-master", "127.0.0.1:7070"}, "-master needs -worker"},
		{[]string{"-worker"}, "-worker needs -master ADDR, the address the master prints"},
		{[]string{"-worker", "-master", "127.0.0.1:7070", "-n", "5"}, "-n is a flag of the master, not of -worker"},
		{[]string{"-worker", "-master", "127.0.0.1:7070", "-slots", "-3"}, "-slots must be between 1 and 1000, got -3"},
		{[]string{"-autoscale", "4"}, `-autoscale: want MIN:MAX, two whole numbers, not "4"`},
		{[]string{"-autoscale", "1:65"}, `-autoscale: want 1 <= MIN <= MAX <= 64, not "1:65"`},
		{[]string{"-autoscale", "1:3", "-workers", "2"}, "-autoscale starts MIN workers and follows the stage: it takes neither -workers nor -state"},
		{[]string{"-worker", "-master", "127.0.0.1:7070", "-autoscale", "1:2"}, "-autoscale is a flag of the master, not of -worker"},
		{[]string{"-clients", "acme"}, `-clients: "acme" is not NAME:EMAILS or NAME:EMAILS:WEIGHT`},
		{[]string{"-clients", "acme:10:0"}, `-clients: acme's weight must be a whole number from 1 to 1000, got "0"`},
		{[]string{"-clients", "acme:10", "-n", "5"}, "-clients sends each client's emails: it takes neither -n nor -state"},
		{[]string{"-worker", "-master", "127.0.0.1:7070", "-clients", "a:1"}, "-clients is a flag of the master, not of -worker"},
		{[]string{"-tls-ca", "ca.pem"}, "-tls-ca, -tls-cert and -tls-key go together: the CA that signs every process's certificate, this one's, and its key"},
		{[]string{"-worker", "-master", "127.0.0.1:7070", "-tls-cert", "w.pem", "-tls-key", "w-key.pem"}, "-tls-ca, -tls-cert and -tls-key go together: the CA that signs every process's certificate, this one's, and its key"},
		{[]string{"-state", "/tmp/s", "-tls-ca", "a", "-tls-cert", "b", "-tls-key", "c"}, "-tls-ca, -tls-cert and -tls-key do not go with -state: its processes all run on this machine, over the loopback"},
		{[]string{"-tls-ca", "/nonexistent/ca.pem", "-tls-cert", "/nonexistent/c.pem", "-tls-key", "/nonexistent/k.pem"}, "-tls-ca, -tls-cert, -tls-key: mtls: unusable files: CA file: open /nonexistent/ca.pem: no such file or directory"},
		{[]string{"-listen", "192.0.2.1:0"}, "-listen: remote: 192.0.2.1:0 is off the loopback: connections to it need TLS, or AllowInsecure to send everything in the clear to whoever reaches it"},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		var out, errs bytes.Buffer
		err := run(t.Context(), tc.args, &out, &errs)
		require.Error(t, err, tc.args)
		assert.Equal(t, tc.want, err.Error(), tc.args)
		assert.Empty(t, out.String(), "nothing runs")
		assert.Equal(t, 2, exitCode(err, &errs), tc.args)
		assert.Contains(t, errs.String(), "mailer: "+tc.want+"\nrun mailer -h for the flags\n")
	}
}

func TestBadFlagsExit2(t *testing.T) {
	out, errs, code := program(t, "-n", "0")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "mailer: -n must be between 1 and 10000000, got 0\nrun mailer -h for the flags\n", errs)
}

func TestAWorkerWhoseMasterIsUnreachableSaysSoAndExits1(t *testing.T) {
	addr := deadAddress(t)
	var out, errs bytes.Buffer
	err := run(t.Context(), []string{"-worker", "-master", addr}, &out, &errs)
	require.ErrorIs(t, err, remote.ErrUnreachable)
	assert.Contains(t, err.Error(), "remote: the master cannot be reached at "+addr)
	assert.Equal(t, 1, exitCode(err, &errs))

	stdout, stderr, code := program(t, "-worker", "-master", addr, "-name", "w9")
	assert.Equal(t, 1, code)
	assert.Equal(t, "mailer: worker w9: joining the master at "+addr+", to send 8 emails at once\n", stdout)
	assert.Regexp(t, `^mailer: remote: the master cannot be reached at `+addr+`: dial tcp `, stderr)
}

// A worker given a master whose host does not resolve is told so, naming
// the host, and exits 2: the address came from a flag.
func TestAWorkerWhoseMasterDoesNotResolveIsToldSo(t *testing.T) {
	_, stderr, code := program(t, "-worker", "-master", "nosuchhost.invalid:7070")
	assert.Equal(t, 2, code)
	assert.Regexp(t, `^mailer: remote: host "nosuchhost\.invalid" of nosuchhost\.invalid:7070 does not resolve: `, stderr)
	assert.NotContains(t, stderr, "off the loopback")
}

// With TLS the master may listen off the loopback: remote's rule passes,
// and what stops it here is only that 192.0.2.1 is no address of this
// machine's.
func TestWithTLSTheMasterMayListenOffTheLoopback(t *testing.T) {
	ca := certs.NewAuthority(t, "mailer-ca")
	f := ca.Files(t, ca, "master", func(c *x509.Certificate) { c.IPAddresses = []net.IP{net.ParseIP("192.0.2.1")} })
	var out, errs bytes.Buffer
	err := run(t.Context(), []string{"-listen", "192.0.2.1:0", "-tls-ca", f.CA, "-tls-cert", f.Cert, "-tls-key", f.Key}, &out, &errs)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "off the loopback")
	assert.Contains(t, err.Error(), "192.0.2.1:0")
}

func TestHelpPrintsTheUsageAndSucceeds(t *testing.T) {
	var out, errs bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-h"}, &out, &errs))
	for _, f := range []string{"-n", "-rate", "-workers", "-slots", "-kill-after", "-join-after", "-wait", "-listen", "-log", "-worker", "-master", "-name"} {
		assert.Contains(t, out.String(), "  "+f+" ")
	}
	assert.Contains(t, out.String(), "  -tls-ca FILE, -tls-cert FILE, -tls-key FILE\n")
	assert.Empty(t, errs.String())
}

func TestTheMilestonesFollowNAndWorkers(t *testing.T) {
	cfg, err := parseFlags([]string{"-n", "1000"}, nil)
	require.NoError(t, err)
	assert.Equal(t, 250, cfg.killAfter)
	assert.Equal(t, 500, cfg.joinAfter)
	cfg, err = parseFlags([]string{"-n", "1000", "-workers", "0"}, nil)
	require.NoError(t, err)
	assert.Zero(t, cfg.killAfter, "no worker of its own to kill")
	assert.Zero(t, cfg.joinAfter, "the master waits for workers started by hand")
	cfg, err = parseFlags([]string{"-n", "1000", "-kill-after", "0", "-join-after", "10"}, nil)
	require.NoError(t, err)
	assert.Zero(t, cfg.killAfter)
	assert.Equal(t, 10, cfg.joinAfter)
}

func TestTheMailServerDeliversAMessageIDOnceAndCountsTheRepeats(t *testing.T) {
	m, err := mailserver.Start(mailserver.Config{})
	require.NoError(t, err)
	defer func() { require.NoError(t, m.Close(context.Background())) }()
	a, b := newSender("a", 2, nil), newSender("b", 2, nil)
	defer a.close()
	defer b.close()
	first, second := newEmail(1, m.URL()), newEmail(2, m.URL())

	r, err := a.send(t.Context(), first)
	require.NoError(t, err)
	assert.Equal(t, receipt{ID: first.ID, Worker: "a", Outcome: mailserver.Delivered}, r)
	r, err = b.send(t.Context(), first)
	require.NoError(t, err)
	assert.Equal(t, receipt{ID: first.ID, Worker: "b", Outcome: mailserver.Repeat}, r, "a repeat is refused, and the sender told")
	_, err = b.send(t.Context(), second)
	require.NoError(t, err)

	c := m.Counts()
	assert.Equal(t, map[string]int{first.ID: 2, second.ID: 1}, c.Posts)
	assert.Equal(t, mailserver.Tally{Delivered: 2, Refused: 1}, c.Total)
	assert.Equal(t, map[string]mailserver.Tally{"a": {Delivered: 1}, "b": {Delivered: 1, Refused: 1}}, c.ByWorker)

	bad := newEmail(3, m.URL())
	bad.Relay += "/nowhere"
	_, err = a.send(t.Context(), bad)
	assert.ErrorContains(t, err, "the mail server answered 404 Not Found", "an error, so the master tries the email again")
}

func TestTheCheckCatchesAnEmailLostLoggedTwiceOrUncounted(t *testing.T) {
	mail := func(ids ...int) mailserver.Counts {
		c := mailserver.Counts{Posts: map[string]int{}}
		for _, i := range ids {
			c.Posts[messageID(i)]++
			if c.Posts[messageID(i)] == 1 {
				c.Total.Delivered++
			} else {
				c.Total.Refused++
			}
		}
		return c
	}
	log := func(ids ...int) []receipt {
		var rs []receipt
		for _, i := range ids {
			rs = append(rs, receipt{ID: messageID(i), Outcome: mailserver.Delivered})
		}
		return rs
	}
	repeats, err := checkOnce(3, mail(1, 2, 3, 2), log(1, 2, 3))
	require.NoError(t, err, "a repeat the mail server refused is no fault")
	assert.Zero(t, repeats)

	_, err = checkOnce(3, mail(1, 2), log(1, 2, 3))
	assert.EqualError(t, err, "1 emails never reached the mail server")
	_, err = checkOnce(3, mail(1, 2, 3), log(1, 2, 2))
	assert.EqualError(t, err, "the campaign log holds 3 receipts for 3 emails: 1 emails have none, 1 more than one")
	_, err = checkOnce(2, mail(1, 2, 3), log(1, 2))
	assert.EqualError(t, err, "the mail server delivered 3 emails, 3 distinct, for 2")
	uncounted := mail(1, 2)
	uncounted.Posts[messageID(1)]++
	_, err = checkOnce(2, uncounted, log(1, 2))
	assert.EqualError(t, err, "the mail server took 3 POSTs but delivered 2 and refused 0")
	said := log(1, 2)
	said[1].Outcome = mailserver.Repeat
	_, err = checkOnce(2, mail(1, 2), said)
	assert.EqualError(t, err, "1 receipts say already-delivered, but the mail server refused 0 repeats")
}

// Only the dead letters of emails that failed for want of a worker are
// counted as such.
func TestOnlyEmailsWithNoWorkerCountAsStarved(t *testing.T) {
	var out bytes.Buffer
	c := &campaign{starv: &starved.Watch{Out: &out, Wait: time.Minute, Command: func() string { return "CMD" }}}
	c.dead(agent.DeadLetter{Err: fmt.Errorf("remote: item 3 waited 1m0s and no worker registered: %w", remote.ErrNoWorker)})
	c.dead(agent.DeadLetter{Err: errors.New("the mail server answered 500")})
	c.starv.Flush()
	assert.Equal(t, "mailer: 1 emails have failed for good for want of a worker (remote.ErrNoWorker): none could take them within -wait 1m0s\n", out.String())
}
