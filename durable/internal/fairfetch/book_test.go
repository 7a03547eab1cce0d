package fairfetch

import (
	"slices"
	"testing"
	"time"
)

func newBook(t *testing.T, weights map[string]int, budget, most int) *Book[int] {
	t.Helper()
	b, err := NewBook[int](time.Millisecond, weights, budget, most)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewBookRefusesBadSettings(t *testing.T) {
	if _, err := NewBook[int](0, nil, 8, 8); err == nil {
		t.Error("a zero quantum was taken")
	}
	if _, err := NewBook[int](time.Millisecond, map[string]int{"a": 0}, 8, 8); err == nil {
		t.Error("a weight of 0 was taken")
	}
}

// TestWantsFetchEachCountedKeyWithinTheBudget steps a Book through counts
// and fetches and checks the fetches it wants after each.
func TestWantsFetchEachCountedKeyWithinTheBudget(t *testing.T) {
	type step struct {
		name    string
		count   map[string]int // taken as a new count, if not nil
		fetched map[string]int // items fetched per key, as asked
		short   string         // a key whose fetch brought fewer than asked
		want    []Want         // sorted by key
	}
	steps := []step{
		{name: "nothing counted", want: nil},
		{name: "two keys, budget 16: 4 each", count: map[string]int{"a": 100, "b": 3},
			want: []Want{{"a", 4}, {"b", 3}}},
		{name: "once fetched, nothing more", fetched: map[string]int{"a": 4, "b": 3}, want: nil},
		{name: "a new count finds b's fetched: none left", count: map[string]int{"a": 96}, want: nil},
		{name: "a third key comes", count: map[string]int{"a": 96, "c": 50},
			want: []Want{{"c", 2}}},
		{name: "c's fetch comes back short: dry", fetched: map[string]int{"c": 1}, short: "c", want: nil},
		// b keeps its line (3 queued) with none stored, so three keys
		// share the budget: 2 each; c has 1 queued, low, and is fetched.
		{name: "a count clears dry", count: map[string]int{"a": 96, "c": 49},
			want: []Want{{"c", 2}}},
	}
	b := newBook(t, nil, 16, 8)
	for _, s := range steps {
		if s.count != nil {
			b.Count(s.count)
		}
		for k, n := range s.fetched {
			vs := make([]int, n)
			asked := n
			if k == s.short {
				asked = n + 1
			}
			b.Fetched(k, vs, asked)
		}
		got := b.Wants(nil)
		slices.SortFunc(got, func(x, y Want) int { return compare(x.Key, y.Key) })
		if !slices.Equal(got, s.want) {
			t.Fatalf("%s: wants %v, want %v", s.name, got, s.want)
		}
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestWantsStayWithinTheBudgetAndTakeTurns checks that keys past the
// budget are fetched from first at the next call.
func TestWantsStayWithinTheBudgetAndTakeTurns(t *testing.T) {
	b := newBook(t, nil, 4, 8)
	b.Count(map[string]int{"a": 10, "b": 10, "c": 10, "d": 10})
	first := b.Wants(nil)
	total := 0
	for _, w := range first {
		total += w.N
		if w.N != 2 {
			t.Errorf("key %s asked for %d, want 2 (the least a key is asked)", w.Key, w.N)
		}
	}
	if total != 4 {
		t.Fatalf("first wants %v ask %d in all, want the budget, 4", first, total)
	}
	second := b.Wants(nil)
	if len(second) == 0 || second[0].Key == first[0].Key {
		t.Fatalf("the second wants %v start where the first %v did", second, first)
	}
}

// TestALineRefillsBeforeItEmpties pops a key's items and checks that its
// line is fetched again while one is left, so it keeps its place.
func TestALineRefillsBeforeItEmpties(t *testing.T) {
	b := newBook(t, nil, 8, 3)
	b.Count(map[string]int{"a": 10})
	w := b.Wants(nil)
	if len(w) != 1 || w[0].N != 3 {
		t.Fatalf("wants %v, want a:3", w)
	}
	b.Fetched("a", []int{1, 2, 3}, 3)
	for i, want := range []int{0, 3} {
		k, _, c, ok := b.Pop()
		if !ok {
			t.Fatal("nothing to pop")
		}
		b.Done(k, c, time.Millisecond)
		if got := b.Want("a"); got != want {
			t.Fatalf("after pop %d, %d queued: wants %d, want %d", i+1, b.Queued("a"), got, want)
		}
	}
	if drained := b.Drain(); len(drained) != 1 || b.Len() != 0 {
		t.Fatalf("drain took %v and left %d", drained, b.Len())
	}
}

func TestCountDue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		now, last time.Time
		empty     bool
		want      bool
	}{
		{t0, time.Time{}, false, true},
		{t0, t0, true, true},
		{t0.Add(50 * time.Millisecond), t0, false, false},
		{t0.Add(100 * time.Millisecond), t0, false, true},
	} {
		if got := CountDue(c.now, c.last, c.empty, recount); got != c.want {
			t.Errorf("CountDue(%v, %v, %v) = %v, want %v", c.now.Sub(t0), c.last, c.empty, got, c.want)
		}
	}
}

func TestTokensAndSubjects(t *testing.T) {
	if Token("") != "" || Subject("q.items", "") != "q.items" {
		t.Error("no key is not the items' subject")
	}
	for _, k := range []string{"acme", "a.b", "*", ">", "with space", "é", "a\tb"} {
		tok := Token(k)
		if len(tok) != 32 || slices.ContainsFunc([]byte(tok), func(c byte) bool { return !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') }) {
			t.Errorf("Token(%q) = %q: not 32 hex digits", k, tok)
		}
		if Subject("q.items", k) != "q.items."+tok {
			t.Errorf("Subject of %q is %q", k, Subject("q.items", k))
		}
	}
	if TokenOf("q.items", Subject("q.items", "acme")) != Token("acme") || TokenOf("q.items", "q.items") != "" {
		t.Error("TokenOf does not read back the token of a subject")
	}
	if Token("a") == Token("b") {
		t.Error("two keys share a token")
	}
}
