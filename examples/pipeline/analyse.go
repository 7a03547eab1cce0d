package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/evolvekit/evolve/remote"
)

// The resources a kind of worker holds, as tags it registers with.
const (
	tagStopWords = "stop-words" // the stop-word list the tokenizer needs
	tagModel     = "model"      // the model the classifier needs
)

// job is an item of the analysis as it moves between workers: all of its
// state, which crosses the wire through the stage's codec at each move
// (never a closure). Page is the text until it is tokenized; Counts the
// words that are not stop words, after.
type job struct {
	Seq    int            `json:"seq"`
	URL    string         `json:"url"`
	Page   string         `json:"page,omitempty"`
	Size   int            `json:"size"`
	Counts map[string]int `json:"counts,omitempty"`
	// Path is the workers the job went through, and what each did.
	Path []string `json:"path"`
}

// verdict is what the analysis of a page came to.
type verdict struct {
	Seq   int      `json:"seq"`
	URL   string   `json:"url"`
	Size  int      `json:"size"`
	Label string   `json:"label"`
	Path  []string `json:"path"`
}

// resources are what one worker process holds: its name, and the
// stop-word list or the model, or both, loaded as it started (a real
// model may take half an hour to load: that is why it is loaded only on
// some workers, and why work moves to it rather than the other way).
type resources struct {
	name  string
	stop  map[string]bool
	model map[string]string // word → topic
}

// load returns the resources of a worker of kind: "tokenize" holds the
// stop words, "classify" the model (slow to load, as a real one is),
// "both" holds both; with the tags it registers with.
func load(name, kind string) (*resources, []string, error) {
	r := &resources{name: name}
	var tags []string
	switch kind {
	case "tokenize", "both":
		r.stop = map[string]bool{}
		for _, w := range stopWords {
			r.stop[w] = true
		}
		tags = append(tags, tagStopWords)
	}
	switch kind {
	case "classify", "both":
		r.model = map[string]string{}
		for topic, words := range topics {
			for _, w := range words {
				r.model[w] = topic
			}
		}
		tags = append(tags, tagModel)
	}
	if tags == nil {
		return nil, nil, fmt.Errorf("-worker: no kind of worker %q: tokenize, classify or both", kind)
	}
	return r, tags, nil
}

// analyse is the work of every worker: it does what the resources it
// holds allow, and asks for the job to move on, with its state, to a
// worker that holds what it lacks ("requesting resource stop-words, not
// found": an env swap).
func (r *resources) analyse(_ context.Context, j job) (verdict, error) {
	if j.Counts == nil {
		if r.stop == nil {
			j.Path = append(j.Path, r.name+": no stop words")
			return verdict{}, remote.Move(tagStopWords, j)
		}
		j.Counts = r.tokenize(j.Page)
		j.Page = "" // what moves on is the counts, not the page
		j.Path = append(j.Path, r.name+": tokenized")
	}
	if r.model == nil {
		j.Path = append(j.Path, r.name+": no model")
		return verdict{}, remote.Move(tagModel, j)
	}
	label := r.classify(j.Counts)
	j.Path = append(j.Path, r.name+": classified")
	return verdict{Seq: j.Seq, URL: j.URL, Size: j.Size, Label: label, Path: j.Path}, nil
}

// tokenize counts the words of text that are not stop words.
func (r *resources) tokenize(text string) map[string]int {
	counts := map[string]int{}
	for _, w := range strings.Fields(text) {
		if !r.stop[w] {
			counts[w]++
		}
	}
	return counts
}

// classify labels counts with the topic whose words they hold most, the
// first in name order on a tie.
func (r *resources) classify(counts map[string]int) string {
	score := map[string]int{}
	for w, n := range counts {
		if topic, ok := r.model[w]; ok {
			score[topic] += n
		}
	}
	best := ""
	for _, topic := range topicNames {
		if best == "" || score[topic] > score[best] {
			best = topic
		}
	}
	return best
}
