package readme

// The README's Go, one function a block, in the README's order. A README
// block is a run of lines of one of these functions (or, for a whole
// program, its import block and the body of main), whitespace aside:
// TestREADME checks it. Lines a block leaves out, before or after it, give
// the snippet what it assumes (a runtime, a context, the values it posts)
// and use what it makes. The stand-ins for the user's own code (lookUp,
// Row, deliver, ...) are at the bottom.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/mtls"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// snippetHello is the body of main in the README's first program, whose
// import block the README shows too.
func snippetHello() {
	ctx := context.Background()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)

	limit, err := rate.Stage(rate.Config[string]{Rate: 5, Burst: 1}) // 5 words a second
	if err != nil {
		log.Fatal(err)
	}
	upper, err := parallel.Stage(parallel.Config{Limit: 2}, func(ctx context.Context, w string) (string, error) {
		return strings.ToUpper(w), nil
	})
	if err != nil {
		log.Fatal(err)
	}
	chain, err := compose.Start(rt, compose.Pipe2(limit, upper), func(w string) { fmt.Println(w) })
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range strings.Fields("hello from evolve") {
		if err := chain.Post(ctx, w); err != nil {
			log.Fatal(err)
		}
	}
	chain.Close()
	if err := chain.Wait(ctx); err != nil {
		log.Fatal(err)
	}
}

// Example_hello runs the README's first program.
func Example_hello() {
	snippetHello()
	// Output:
	// HELLO
	// FROM
	// EVOLVE
}

func snippetUse(ctx context.Context) error {
	rt := agent.NewRuntime(agent.WithLogger(zerolog.New(os.Stderr)))
	defer rt.Shutdown(context.Background())

	fetch := func(ctx context.Context, id int) (string, error) { return lookUp(ctx, id) }
	p, err := parallel.New(rt, parallel.Config{Limit: 4, Timeout: 2 * time.Second}, fetch,
		func(r parallel.Result[string]) {
			fmt.Println(r.Seq, r.Value, r.Err) // in input order
		})
	if err != nil {
		return err // e.g. "parallel: limit must be at least 1, got 0"
	}
	for id := range 100 {
		if err := p.Post(ctx, id); err != nil { // blocks while the input queue is full
			return err
		}
	}
	p.Close()         // no more input
	err = p.Wait(ctx) // every item done; the first failure, if any
	return err
}

func snippetRetry() parallel.Config {
	cfg := parallel.Config{Limit: 8,
		Retry:       parallel.Retry{Attempts: 4, Backoff: 50 * time.Millisecond, If: transient},
		DeadLetters: func(d agent.DeadLetter) { log.Printf("gave up on %v: %v", d.Item, d.Err) },
	}
	return cfg
}

func snippetKeys() parallel.Config {
	cfg := parallel.Config{Limit: 8, Unordered: true,
		Key:     func(e Email) string { return e.Client },
		Weights: map[string]int{"enterprise": 4}, // four times a client's share
	}
	return cfg
}

func snippetChain(ctx context.Context, rt *agent.Runtime, ids []int) error {
	limit, err := rate.Stage(rate.Config[int]{Rate: 100, Burst: 10}) // 100 calls/s
	if err != nil {
		return err
	}
	fetch, err := parallel.Stage(parallel.Config{Limit: 8}, callAPI) // 8 at a time, in order
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[Row]{Size: 500, MaxWait: time.Second}, insertRows)
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, compose.Pipe3(limit, fetch, batches), func(b []Row) {
		log.Printf("stored %d rows", len(b))
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := chain.Post(ctx, id); err != nil { // blocks while the first stage is full
			return err
		}
	}
	chain.Close()
	return chain.Wait(ctx) // the sink has seen everything; every stage's errors, joined
}

func snippetMaster(ctx context.Context, rt *agent.Runtime, emails []Email) error {
	// The master: rate -> remote -> buffer, as before, on emails.
	node, err := remote.Listen(remote.NodeConfig{Addr: "127.0.0.1:7070"})
	if err != nil {
		return err
	}
	defer node.Close()
	limit, err := rate.Stage(rate.Config[Email]{Rate: 100, Burst: 10})
	if err != nil {
		return err
	}
	send, err := remote.Stage[Email, Receipt](remote.Config[Email]{Node: node, Name: "send", Unordered: true})
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[Receipt]{Size: 100, MaxWait: time.Second}, nil)
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, compose.Pipe3(limit, send, batches), logReceipts)
	if err != nil {
		return err
	}
	for _, e := range emails {
		if err := chain.Post(ctx, e); err != nil {
			return err
		}
	}
	chain.Close()
	return chain.Wait(ctx) // then the workers' Work returns nil
}

func snippetWorker(ctx context.Context) error {
	// A worker, in another process: returns nil once the stage has finished.
	err := remote.Work(ctx, remote.WorkerConfig{Master: "127.0.0.1:7070", Stage: "send", Slots: 8},
		func(ctx context.Context, e Email) (Receipt, error) { return deliver(ctx, e) })
	return err
}

// snippetMove is work that moves on where the stop-word list is held.
func snippetMove() func(context.Context, Doc) (Doc, error) {
	work :=
		func(ctx context.Context, d Doc) (Doc, error) {
			if d.Words == nil { // no stop-word list here: go on where it is
				return Doc{}, remote.Move("stopwords", Doc{Text: d.Text, Words: strings.Fields(d.Text)})
			}
			return cut(d), nil
		}
	return work
}

func snippetTLSMaster() error {
	creds, err := mtls.Load("ca.pem", "master.pem", "master-key.pem")
	if err != nil {
		return err
	}
	node, err := remote.Listen(remote.NodeConfig{Addr: "10.0.0.5:7070", TLS: creds})
	if err != nil {
		return err
	}
	return node.Close()
}

func snippetTLSWorker(ctx context.Context, logger zerolog.Logger) error {
	creds, err := mtls.Load("ca.pem", "worker1.pem", "worker1-key.pem")
	if err != nil {
		return err
	}
	err = remote.Work(ctx, remote.WorkerConfig{Master: "10.0.0.5:7070", Stage: "send", Listen: "10.0.0.6:0",
		TLS: creds, Log: logger}, deliver)
	return err
}

func snippetDurable(ctx context.Context, rt *agent.Runtime, entries []durable.Entry[int]) error {
	q, err := durable.Open[int](durable.Embedded{Dir: "state/queue"}, durable.Config{}) // or durable.Server{URL: "nats://...", Replicas: 3}
	if err != nil {
		return err
	}
	defer q.Close()
	// Add the entries once; a run after a crash finds the marker and only consumes.
	// One that died inside AddMany left none, and adds them all again: within
	// Config.Dedupe of the first add, the keys the queue had add nothing.
	if _, err := os.Stat("state/added"); errors.Is(err, fs.ErrNotExist) {
		if err := q.AddMany(ctx, entries); err != nil {
			return err
		}
		if err := os.WriteFile("state/added", nil, 0o644); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}

	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 100, Burst: 10})
	if err != nil {
		return err
	}
	fetch, err := parallel.Stage(parallel.Config{Limit: 8}, durable.Map(fetchRecord)) // work on values, lifted to items
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[Record]]{Size: 100, MaxWait: time.Second}, nil)
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, compose.Pipe3(limit, fetch, batches),
		durable.Batches(q, writeBatch),         // acknowledges a batch's items once writeBatch returns nil
		compose.WithDeadLetters(q.DeadLetters)) // what fails for good goes to the queue's dead letters
	if err != nil {
		return err
	}
	return durable.Consume(ctx, q, chain, durable.WithUntilEmpty()) // closes the chain, waits for it
}

func snippetSharedLimit(q *durable.Queue[int]) error {
	api, err := q.Limit("api", 100, 10) // 100 a second, bursts of 10, for every process together
	if err != nil {
		return err
	}
	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 100, Burst: 10, Shared: api})
	if err != nil {
		return err
	}
	_ = limit // the first stage of the chain above
	return nil
}

func snippetMetrics(provider metric.MeterProvider) *agent.Runtime {
	rt := agent.NewRuntime(agent.WithMeterProvider(provider)) // any OpenTelemetry metric.MeterProvider
	return rt
}

func snippetHistograms() *agent.Runtime {
	hist := agent.NewHistograms()                                     // an sdkmetric.Producer
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(hist)) // any reader that takes producers
	rt := agent.NewRuntime(
		agent.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
		agent.WithHistograms(hist))
	return rt
}

func snippetEvolve() error {
	s, err := rate.NewState(rate.Config[string]{Rate: 2, Burst: 2})
	if err != nil {
		return err
	}
	items := []rate.Item[string]{{Value: "a"}, {Value: "b"}, {Value: "c"}}
	traces := agenttest.Run(rate.Evolve[string], s,
		agenttest.Step{At: 0, Msg: agent.Pull{N: agent.Unbounded}},
		agenttest.Step{At: 0, Msg: agent.Input[rate.Item[string]]{Items: items}},
		agenttest.Step{At: 500 * time.Millisecond, Msg: agent.Tick{Tag: 1}},
	)
	// traces[1].Effects: Emit [a b], Demand 2, Timer 500ms (when c's token is due)
	// traces[2].Effects: Emit [c], Demand 1
	_ = traces // rate's ExampleEvolve prints them, and go test checks what it prints
	return nil
}

// The user's own code, as the snippets assume it. writeBatch counts the
// records it was given, for TestDurableResumes.

var written atomic.Int64

type (
	Row     struct{ ID int }
	Record  struct{ ID int }
	Email   struct{ ID, To, Client string }
	Receipt struct{ ID string }
)

func lookUp(ctx context.Context, id int) (string, error)      { return fmt.Sprint(id), ctx.Err() }
func callAPI(ctx context.Context, id int) (Row, error)        { return Row{ID: id}, ctx.Err() }
func insertRows(ctx context.Context, rows []Row) error        { return ctx.Err() }
func fetchRecord(ctx context.Context, id int) (Record, error) { return Record{ID: id}, ctx.Err() }
func writeBatch(b []durable.Item[Record]) error               { written.Add(int64(len(b))); return nil }
func logReceipts(b []Receipt)                                 { log.Printf("%d receipts", len(b)) }
func transient(err error) bool                                { return !errors.Is(err, context.Canceled) }

func deliver(ctx context.Context, e Email) (Receipt, error) {
	return Receipt{ID: e.ID}, ctx.Err()
}

// Doc is a document whose work moves between workers: its text, and its
// words once split.
type Doc struct {
	Text  string
	Words []string
}

// cut drops the stop words of d.
func cut(d Doc) Doc {
	kept := d.Words[:0:0]
	for _, w := range d.Words {
		if w != "the" && w != "a" {
			kept = append(kept, w)
		}
	}
	return Doc{Text: d.Text, Words: kept}
}
