//go:build !race

// The test in this file runs protoactor remote for real, which the race
// detector cannot (see package remote's process tests).

package durable_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

func init() {
	children["traceworker"] = func(args []string) error { return runTraceWorker(args[0], args[1], args[2], args[3]) }
}

// traceStage names the remote stage of the trace test.
const traceStage = "traced"

// otlpProvider returns a tracer provider that sends its spans over
// OTLP/HTTP to the receiver at addr, as the process service.
func otlpProvider(ctx context.Context, addr, service string) (*sdktrace.TracerProvider, error) {
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(addr), otlptracehttp.WithInsecure())
	if err != nil {
		return nil, err
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(20*time.Millisecond)),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", service))),
	), nil
}

// runTraceWorker is a worker process of the master at addr, named name,
// that sends its spans to the OTLP receiver at otlp. Its work starts a
// span "step" and sends it at once; then the first worker to work on an
// item writes its name to the file "held" in dir and holds the item until
// it is killed, and any other doubles it. It works again for a master
// that finished, or went, until SIGTERM.
func runTraceWorker(addr, otlp, dir, name string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	tp, err := otlpProvider(ctx, otlp, "worker-"+name)
	if err != nil {
		return err
	}
	defer func() { _ = tp.Shutdown(context.Background()) }()
	fmt.Println("bound 0")
	work := durable.Map(func(ctx context.Context, v int) (int, error) {
		_, step := tp.Tracer("test").Start(ctx, "step")
		step.End()
		if err := tp.ForceFlush(ctx); err != nil {
			return 0, err
		}
		f, err := os.OpenFile(filepath.Join(dir, "held"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			_, _ = f.WriteString(name)
			_ = f.Close()
			<-ctx.Done() // the test kills the process first
			return 0, ctx.Err()
		}
		return 2 * v, nil
	})
	for ctx.Err() == nil {
		err := remote.Work(ctx, remote.WorkerConfig{Master: addr, Stage: traceStage, Slots: 1, TracerProvider: tp}, work)
		if err != nil && !errors.Is(err, remote.ErrUnreachable) && !errors.Is(err, remote.ErrMasterGone) {
			return err
		}
		select { // the master restarts: try again
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// receiver is an OTLP/HTTP receiver of traces on the loopback: it decodes
// each ExportTraceServiceRequest posted to /v1/traces and keeps its spans,
// each with the service.name of its resource.
type receiver struct {
	srv  *http.Server
	addr string
	mu   sync.Mutex
	got  []gotSpan
}

// gotSpan is a span the receiver took, and the service that sent it.
type gotSpan struct {
	*tracepb.Span
	service string
}

func startReceiver(t *testing.T) *receiver {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{addr: ln.Addr().String()}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.export)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = r.srv.Serve(ln) }()
	t.Cleanup(func() { _ = r.srv.Close(); <-done })
	return r
}

// export takes one export request.
func (r *receiver) export(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	data, err := io.ReadAll(body)
	var msg coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(data, &msg)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		service := ""
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				service = kv.GetValue().GetStringValue()
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.got = append(r.got, gotSpan{Span: s, service: service})
			}
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// inTrace returns the spans of trace id the receiver has.
func (r *receiver) inTrace(id oteltrace.TraceID) []gotSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []gotSpan
	for _, s := range r.got {
		if oteltrace.TraceID(s.TraceId) == id {
			out = append(out, s)
		}
	}
	return out
}

// await waits, within d, for the spans of trace id to hold what ok looks
// for; flush, before each look, sends what the test's own provider holds.
func (r *receiver) await(t *testing.T, id oteltrace.TraceID, d time.Duration, what string, flush func(), ok func([]gotSpan) bool) []gotSpan {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		flush()
		spans := r.inTrace(id)
		if ok(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("within %v, trace %s did not hold %s; it has:\n%s", d, id, what, describe(spans))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// linked reports whether the receiver has a span named name with a link
// to the span of ID id.
func (r *receiver) linked(name string, id []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.got {
		for _, l := range s.Links {
			if s.Name == name && string(l.SpanId) == string(id) {
				return true
			}
		}
	}
	return false
}

// lastSpan returns the span of spans that started last.
func lastSpan(spans []gotSpan) gotSpan {
	var last gotSpan
	for _, s := range spans {
		if last.Span == nil || s.StartTimeUnixNano > last.StartTimeUnixNano {
			last = s
		}
	}
	return last
}

// describe lists spans, one a line.
func describe(spans []gotSpan) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "  %s %q id %x parent %x %v\n", s.service, s.Name, s.SpanId, s.ParentSpanId, attrs(s.Span))
	}
	return b.String()
}

// attrs returns the attributes of s as text.
func attrs(s *tracepb.Span) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			out[kv.Key] = v.GetStringValue()
		default:
			out[kv.Key] = fmt.Sprint(v.GetIntValue())
		}
	}
	return out
}

// matching returns the spans named name, sent by service if not "", with
// attribute key = value if key is not "".
func matching(spans []gotSpan, name, service, key, value string) []gotSpan {
	var out []gotSpan
	for _, s := range spans {
		if s.Name == name && (service == "" || s.service == service) && (key == "" || attrs(s.Span)[key] == value) {
			out = append(out, s)
		}
	}
	return out
}

// traceChain starts, on rt, the trace test's chain on q: rate -> remote
// (on node) -> buffer, whose batches go to sink, fed by Consume under ctx;
// the returned channel takes Consume's error.
func traceChain(t *testing.T, ctx context.Context, rt *agent.Runtime, q *durable.Queue[int], node *remote.Node, opts []durable.Option, sink func([]durable.Item[int]) error) chan error {
	t.Helper()
	type item = durable.Item[int]
	limit, err := rate.Stage(rate.Config[item]{Rate: 1000, Burst: 10})
	if err != nil {
		t.Fatal(err)
	}
	work, err := remote.Stage[item, item](remote.Config[item]{Node: node, Name: traceStage, Heartbeat: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	batches, err := buffer.Stage(buffer.Config[item]{Size: 2, MaxWait: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	chain, err := compose.Start(rt, compose.Pipe3(limit, work, batches), durable.Batches(q, sink))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- durable.Consume(ctx, q, chain, opts...) }()
	return done
}

// TestATraceFollowsAnItemAcrossProcessesAndARestart adds an item to a
// durable queue under a span, and runs a chain rate -> remote -> buffer
// on it, whose remote stage has two worker processes; every process
// sends its spans over OTLP/HTTP to a receiver the test runs. The worker
// that takes the item first holds it and is killed with SIGKILL; the
// other does the second attempt, and the item waits in the buffer. Then
// the master crashes (its queue stops as a crash stops it, and its chain
// with it, nothing acknowledged) and starts again on the same store and
// address: the item is handed out again, done again, and reaches the
// sink. One trace holds it all: the add and its publish, the master's
// spans of both runs, the killed worker's span and the other's spans of
// both runs' attempts.
func TestATraceFollowsAnItemAcrossProcessesAndARestart(t *testing.T) {
	start := time.Now()
	ctx := context.Background()
	dir, sink := t.TempDir(), t.TempDir()
	recv := startReceiver(t)
	tp, err := otlpProvider(ctx, recv.addr, "master")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tp.Shutdown(ctx) }()
	flush := func() { _ = tp.ForceFlush(ctx) }
	cfg := durable.Config{Name: "traced", TracerProvider: tp}
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	addCtx, produce := tp.Tracer("test").Start(ctx, "produce")
	if err := q.Add(addCtx, "followed", 21); err != nil {
		t.Fatal(err)
	}
	produce.End()
	id := produce.SpanContext().TraceID()

	// The first run: the item is held by a worker, which is killed, and
	// done by the other.
	addr := freeAddr(t)
	node, err := remote.Listen(remote.NodeConfig{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime(agent.WithTracerProvider(tp))
	run, stop := context.WithCancel(ctx)
	defer stop()
	consumed := traceChain(t, run, rt, q, node, nil, func([]durable.Item[int]) error { return errors.New("the first run ends before its batch") })
	workers := map[string]*chainChild{}
	for _, name := range []string{"w1", "w2"} {
		workers[name] = startChild(t, "traceworker", addr, recv.addr, sink, name)
		if _, err := workers[name].bound(); err != nil {
			t.Fatal(err)
		}
	}
	held := ""
	for deadline := time.Now().Add(10 * time.Second); held == ""; time.Sleep(5 * time.Millisecond) {
		select {
		case err := <-consumed:
			t.Fatalf("Consume ended before a worker took the item: %v", err)
		default:
		}
		if b, err := os.ReadFile(filepath.Join(sink, "held")); err == nil {
			held = string(b)
		} else if time.Now().After(deadline) {
			t.Fatal("no worker took the item within 10 s (it takes 40 to 60 ms on a quiet machine)")
		}
	}
	other := map[string]string{"w1": "w2", "w2": "w1"}[held]
	workers[held].kill()
	spans := recv.await(t, id, 10*time.Second, "the second attempt, on the other worker, and the remote stage's span ended", flush, func(s []gotSpan) bool {
		return len(matching(s, "work "+traceStage, "worker-"+other, "evolve.attempt", "2")) == 1 &&
			len(matching(s, "process "+traceStage, "master", "", "")) == 1
	})
	firstRemote := matching(spans, "process "+traceStage, "master", "", "")[0]
	if len(matching(spans, "step", "worker-"+held, "", "")) != 1 {
		t.Errorf("the killed worker's step is not in the trace:\n%s", describe(spans))
	}
	// The master's span records both attempts, on two workers: the killed
	// worker's own span of its attempt never ended, and is lost with it.
	if got := attempts(firstRemote); len(got) != 2 || got["1"] == "" || got["2"] == "" || got["1"] == got["2"] {
		t.Errorf("the remote stage's span records the attempts %v; want 1 and 2 on two workers", got)
	}

	// The crash, and the second run on the same store and address.
	durable.Crash(q)
	stop()
	<-consumed
	_ = rt.Shutdown(ctx)
	_ = node.Close()
	q2, err := durable.Open[int](durable.Embedded{Dir: dir}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	node2, err := remote.Listen(remote.NodeConfig{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer node2.Close()
	rt2 := agent.NewRuntime(agent.WithTracerProvider(tp))
	defer func() { _ = rt2.Shutdown(ctx) }()
	var sunk []durable.Item[int]
	run2, stop2 := context.WithTimeout(ctx, 20*time.Second)
	defer stop2()
	consumed = traceChain(t, run2, rt2, q2, node2, []durable.Option{durable.WithUntilEmpty()}, func(b []durable.Item[int]) error {
		sunk = append(sunk, b...)
		return nil
	})
	if err := <-consumed; err != nil {
		t.Fatalf("the second run: %v", err)
	}
	if len(sunk) != 1 || sunk[0].Key != "followed" || sunk[0].Value != 42 {
		t.Fatalf("the sink took %v; want the item, doubled", sunk)
	}
	if err := workers[other].cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := workers[other].wait(10 * time.Second); err != nil {
		t.Errorf("the worker that lived: %v", err)
	}

	spans = recv.await(t, id, 10*time.Second, "the second run's spans", flush, func(s []gotSpan) bool {
		return len(matching(s, "process buffer", "master", "", "")) >= 1 && len(matching(s, "process "+traceStage, "master", "", "")) == 2 &&
			len(matching(s, "work "+traceStage, "worker-"+other, "", "")) == 2
	})
	publish := matching(spans, "publish traced.items", "master", "messaging.system", "nats")
	if pid := produce.SpanContext().SpanID(); len(publish) != 1 || string(publish[0].ParentSpanId) != string(pid[:]) {
		t.Fatalf("the publish span is not the add's child:\n%s", describe(spans))
	}
	// Both runs' first spans are children of the publish span.
	limits := matching(spans, "process rate", "master", "", "")
	if len(limits) != 2 {
		t.Errorf("%d spans of the rate stage; want one a run:\n%s", len(limits), describe(spans))
	}
	for _, s := range limits {
		if string(s.ParentSpanId) != string(publish[0].SpanId) {
			t.Errorf("a run's first span is not the publish span's child:\n%s", describe(spans))
		}
	}
	// Each attempt's span is a child of its run's span of the remote
	// stage: the second attempt of the first, the first of the second.
	var secondRemote gotSpan
	for _, s := range matching(spans, "process "+traceStage, "master", "", "") {
		if string(s.SpanId) != string(firstRemote.SpanId) {
			secondRemote = s
		}
	}
	for _, c := range []struct {
		attempt string
		parent  gotSpan
	}{{"2", firstRemote}, {"1", secondRemote}} {
		w := matching(spans, "work "+traceStage, "worker-"+other, "evolve.attempt", c.attempt)
		if len(w) != 1 || string(w[0].ParentSpanId) != string(c.parent.SpanId) {
			t.Errorf("attempt %s on the worker that lived is not the child of its run's span:\n%s", c.attempt, describe(spans))
		}
	}
	if len(matching(spans, "step", "worker-"+held, "", "")) != 1 {
		t.Errorf("the killed worker's step is not in the trace:\n%s", describe(spans))
	}
	// The sink's batch is a trace of its own, linked to the item's span
	// in the buffer of the second run.
	if !recv.linked("batch buffer", lastSpan(matching(spans, "process buffer", "master", "", "")).SpanId) {
		t.Errorf("no batch span links to the item's last span in the buffer:\n%s", describe(spans))
	}
	t.Logf("one trace of %d spans from 3 processes, in %v:\n%s", len(spans), time.Since(start).Round(time.Millisecond), describe(spans))
}

// attempts returns the workers the "attempt" events of s name, by attempt.
func attempts(s gotSpan) map[string]string {
	out := map[string]string{}
	for _, e := range s.Events {
		if e.Name != "attempt" {
			continue
		}
		attempt, worker := "", ""
		for _, kv := range e.Attributes {
			switch kv.Key {
			case "evolve.attempt":
				attempt = strconv.FormatInt(kv.GetValue().GetIntValue(), 10)
			case "evolve.worker":
				worker = kv.GetValue().GetStringValue()
			}
		}
		out[attempt] = worker
	}
	return out
}
