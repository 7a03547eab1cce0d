package remote_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/evolvekit/evolve/remote"
)

// doc is the state of a document through a pipeline's steps: its text,
// and the words it kept once stop words were cut, which only workers that
// hold the stop-word list (tag "stopwords") can do.
type doc struct {
	Text  string
	Words []string
}

// steps returns the work of a worker that holds the stop-word list stop,
// nil for none: it splits a document into words, and one without the list
// then asks for the document to go on, with those words as its state, on
// a worker with it. One with the list, registered with the tag, goes on
// with the state at once, its own or another worker's.
func steps(stop map[string]bool) func(context.Context, doc) (doc, error) {
	return func(ctx context.Context, d doc) (doc, error) {
		if d.Words == nil {
			d.Words = strings.Fields(d.Text)
			return doc{}, remote.Move("stopwords", d)
		}
		if stop == nil {
			return doc{}, fmt.Errorf("doc %q: stop words need the list", d.Text)
		}
		var kept []string
		for _, w := range d.Words {
			if !stop[w] {
				kept = append(kept, w)
			}
		}
		return doc{Text: d.Text, Words: kept}, nil
	}
}

// A worker without the stop-word list and one with it work for the stage
// "docs"; the master's sink prints where each document moved.
func ExampleMove() {
	cfg := remote.WorkerConfig{Master: "127.0.0.1:7070", Stage: "docs", Slots: 8}
	if err := remote.Work(context.Background(), cfg, steps(nil)); err != nil {
		log.Fatal(err)
	}

	// In another process, a worker that holds the list.
	cfg.Tags = []string{"stopwords"}
	if err := remote.Work(context.Background(), cfg, steps(map[string]bool{"the": true, "a": true})); err != nil {
		log.Fatal(err)
	}

	// The master's sink.
	_ = func(r remote.Result[doc]) {
		for i := 1; i < len(r.Path); i++ {
			fmt.Printf("doc %d moved from %s to %s for tag %s\n", r.Seq, r.Path[i-1].Worker, r.Path[i].Worker, r.Path[i].Tag)
		}
	}
}
