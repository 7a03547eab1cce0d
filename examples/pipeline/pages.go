package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// topics are what a page is about, and the words that say so: the model
// labels a page with the topic whose words it holds most.
var topics = map[string][]string{
	"sport":   {"match", "goal", "team", "league", "coach", "score"},
	"science": {"atom", "theory", "experiment", "cell", "energy", "data"},
	"music":   {"song", "chord", "band", "rhythm", "album", "melody"},
}

// topicNames are the topics in a fixed order: page i is about
// topicNames[i%3].
var topicNames = []string{"music", "science", "sport"}

// stopWords are the words the tokenizer drops, which every page is full
// of: a page counted with them would be about them.
var stopWords = []string{"the", "a", "of", "and", "to", "in", "is", "it", "that", "on"}

// filler is a line of a big page, words of no topic.
const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n"

// page returns the text of page i: a few sentences about its topic among
// stop words, and, for a big page, filler past size bytes.
func page(i, size int) string {
	topic := topicNames[i%len(topicNames)]
	words := topics[topic]
	var b strings.Builder
	for j := range 40 {
		fmt.Fprintf(&b, "the %s of the %s is %s and it %s on a %s\n", words[j%len(words)], words[(j+1)%len(words)],
			topicNames[(i+1)%len(topicNames)], words[(j+2)%len(words)], words[(j+3)%len(words)])
	}
	for b.Len() < size {
		b.WriteString(filler)
	}
	return b.String()
}

// expected is the label the pipeline must give page i.
func expected(i int) string { return topicNames[i%len(topicNames)] }

// pageServer serves page i at /page/i on a port of 127.0.0.1, big (past
// big bytes) when i is in large.
type pageServer struct {
	srv   *http.Server
	addr  string
	big   int
	large map[int]bool
	done  chan error
}

// servePages starts the page server.
func servePages(big int, large map[int]bool) (*pageServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the page server: %w", err)
	}
	s := &pageServer{addr: ln.Addr().String(), big: big, large: large, done: make(chan error, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 {
			http.Error(w, "no such page", http.StatusNotFound)
			return
		}
		size := 0
		if s.large[i] {
			size = s.big
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, page(i, size))
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// url is the address of page i.
func (s *pageServer) url(i int) string { return fmt.Sprintf("http://%s/page/%d", s.addr, i) }

// close stops the server and waits for it.
func (s *pageServer) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}

// fetch gets the page at url.
func fetch(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetching %s: %s", url, resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", url, err)
	}
	return string(body), nil
}
