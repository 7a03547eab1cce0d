//go:build !race

package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
)

// The far worker's settings: farSlots slots whose work takes farWork, a
// round trip of farDelay away from its master (what it sends the master is
// delayed that long; what the master sends it is not), and the prefetch it
// asks for when it does, about farSlots × farDelay / farWork.
const (
	farSlots    = 8
	farWork     = 5 * time.Millisecond
	farDelay    = 100 * time.Millisecond
	farPrefetch = 256
	farOp       = 500  // items posted in one op without prefetch
	farStream   = 1500 // items posted in one op with prefetch
)

// BenchmarkRemoteFar posts b.N × farOp (or farStream) ints to a remote stage whose one worker
// process has farSlots slots and sleeps farWork on each item: on the
// loopback, and through a proxy of this process on 127.0.0.1 that delays
// what the worker sends the master by farDelay, without prefetch and with
// a prefetch of farPrefetch (the master grants it). One op is farOp
// items without prefetch and farStream with it, so that even the one op a
// second of benchmark time allows far away measures the stream and not the
// first item's round trips (a run without prefetch far away is slow: 75
// items/s). It
// reports items/s from the first Post to the last result: the stage's end
// is left out, since the worker answers the master's news that the stage
// finished on a connection of its own, not through the proxy, which the
// master's node refuses (a second connection from the same worker), and
// the master waits a second for the answer.
func BenchmarkRemoteFar(b *testing.B) {
	for _, c := range []struct {
		name     string
		delay    time.Duration
		prefetch int
	}{
		{"loopback", 0, remote.NoPrefetch},
		{"loopback-prefetch", 0, farPrefetch},
		{"far", farDelay, remote.NoPrefetch},
		{"far-prefetch", farDelay, farPrefetch},
	} {
		b.Run(c.name, func(b *testing.B) { remoteFarRun(b, c.delay, c.prefetch) })
	}
}

// remoteFarRun runs one call of BenchmarkRemoteFar.
func remoteFarRun(b *testing.B, delay time.Duration, prefetch int) {
	node, err := remote.Listen(remote.NodeConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer node.Close()
	addr := node.Addr()
	if delay > 0 {
		p, err := startDelayProxy(addr, delay)
		if err != nil {
			b.Fatal(err)
		}
		defer p.close()
		addr = p.addr()
	}
	rt := agent.NewRuntime()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), remoteSetup)
		defer cancel()
		_ = rt.Shutdown(ctx)
	}()
	n := b.N * farOp
	if prefetch != remote.NoPrefetch {
		n = b.N * farStream
	}
	s := newSeen(n)
	bad := 0
	var last time.Time // when the last result came
	h, err := remote.New(rt, remote.Config[int]{Node: node, Name: remoteStage, MaxPrefetch: farPrefetch},
		func(r remote.Result[int]) {
			if r.Err != nil || r.Value != 2*int(r.Seq) {
				bad++
				return
			}
			s.mark(int(r.Seq))
			if s.count == n {
				last = time.Now()
			}
		})
	if err != nil {
		b.Fatal(err)
	}
	child := startChild(b, "worker", addr, remoteStage, strconv.Itoa(farSlots), farWork.String(), strconv.Itoa(prefetch))
	awaitWorkers(b, h, 1)

	ctx := context.Background()
	start := time.Now()
	b.ResetTimer()
	for i := range n {
		if err := h.Post(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	h.Close()
	if err := h.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(n)/last.Sub(start).Seconds(), "items/s")
	if bad != 0 {
		b.Fatalf("%d results failed or were not the item doubled", bad)
	}
	s.check(b)
	if err := child.wait(remoteSetup); err != nil {
		b.Logf("worker: %v", err)
	}
}

// delayProxy passes TCP connections on to a target address, holding what
// the client sends for a fixed delay before it passes it on; what the
// target answers passes at once. Order is kept: it adds latency, not loss.
//
// A node refuses messages addressed to another node than itself, and the
// worker addresses the master's messages to the proxy: so the proxy,
// whose address has as many bytes as the target's, writes the target's
// address in their place as it passes the client's bytes on. Nothing else
// changes, not even a length.
type delayProxy struct {
	ln       net.Listener
	target   string
	from, to []byte // the proxy's address, and the target's
	delay    time.Duration
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
}

// startDelayProxy listens on a free port of 127.0.0.1, whose address is as
// long as target's, for connections to pass on to target.
func startDelayProxy(target string, delay time.Duration) (*delayProxy, error) {
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr := ln.Addr().String()
		if len(addr) != len(target) {
			ln.Close()
			continue
		}
		p := &delayProxy{ln: ln, target: target, from: []byte(addr), to: []byte(target), delay: delay}
		p.wg.Add(1)
		go p.serve()
		return p, nil
	}
	return nil, fmt.Errorf("no free port of 127.0.0.1 with as many digits as %s", target)
}

// addr returns the address clients dial.
func (p *delayProxy) addr() string { return p.ln.Addr().String() }

// serve accepts connections until the listener closes.
func (p *delayProxy) serve() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		q := make(chan chunk, 1<<14)
		p.wg.Add(3)
		go func() { defer p.wg.Done(); p.read(in, q) }()
		go func() { defer p.wg.Done(); p.write(out, q) }()
		go func() { defer p.wg.Done(); _, _ = io.Copy(in, out); in.Close() }()
	}
}

// chunk is what the client sent at one instant.
type chunk struct {
	at   time.Time
	data []byte
}

// read queues what src sends, stamped with when it came, until it ends.
func (p *delayProxy) read(src net.Conn, q chan<- chunk) {
	defer close(q)
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			q <- chunk{at: time.Now(), data: bytes.Clone(buf[:n])}
		}
		if err != nil {
			return
		}
	}
}

// write passes each chunk of q on to dst once delay has passed since it
// came, the proxy's address replaced by the target's. Bytes at a chunk's
// end that may begin the proxy's address wait for the next chunk if it
// came with them (within flushWait), and pass on alone otherwise.
func (p *delayProxy) write(dst net.Conn, q <-chan chunk) {
	defer dst.Close()
	var tail chunk
	for {
		c, ok := p.next(q, tail)
		if len(tail.data) > 0 && (!ok || c.at.Sub(tail.at) > flushWait) {
			if _, err := dst.Write(tail.data); err != nil {
				return
			}
			tail = chunk{}
		}
		if !ok {
			return
		}
		if c.data == nil {
			continue
		}
		time.Sleep(time.Until(c.at.Add(p.delay)))
		data := bytes.ReplaceAll(append(tail.data, c.data...), p.from, p.to)
		k := partial(data, p.from)
		if _, err := dst.Write(data[:len(data)-k]); err != nil {
			return
		}
		tail = chunk{at: c.at, data: bytes.Clone(data[len(data)-k:])}
	}
}

// next returns the next chunk of q, ok false once q is closed. While the
// bytes of tail wait, it waits for no more than flushWait, and returns an
// empty chunk then.
func (p *delayProxy) next(q <-chan chunk, tail chunk) (c chunk, ok bool) {
	if len(tail.data) == 0 {
		c, ok = <-q
		return c, ok
	}
	t := time.NewTimer(flushWait)
	defer t.Stop()
	select {
	case c, ok = <-q:
		return c, ok
	case <-t.C:
		return chunk{at: tail.at.Add(2 * flushWait)}, true
	}
}

// flushWait bounds how long bytes that may begin an address wait for the
// rest.
const flushWait = 2 * time.Millisecond

// partial returns the length of the longest end of data that is a proper
// beginning of s.
func partial(data, s []byte) int {
	for k := min(len(s)-1, len(data)); k > 0; k-- {
		if bytes.HasPrefix(s, data[len(data)-k:]) {
			return k
		}
	}
	return 0
}

// close stops the proxy and its connections, and waits for its goroutines.
func (p *delayProxy) close() {
	_ = p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
