package pacing_test

import (
	"testing"

	"github.com/evolvekit/evolve/remote/internal/pacing"
)

// TestAPacerCountsTokensPassesAndRoom steps a Pacer through a run: room
// opened, items that fill it and bring tokens, tasks that spend them,
// passes reserved for items taken back, and a pass that brings tokens no
// more than were reserved.
func TestAPacerCountsTokensPassesAndRoom(t *testing.T) {
	var p pacing.Pacer
	if p.Paced() {
		t.Fatal("the zero Pacer follows a pacer")
	}
	p.Follow()
	if n := p.Open(4, 10, 8); n != 4 || p.Room() != 4 {
		t.Fatalf("Open = %d, room %d; want 4 and 4: the places the workers have", n, p.Room())
	}
	if n := p.Open(4, 10, 8); n != 0 {
		t.Fatalf("Open again = %d; want 0, the room is open already", n)
	}
	p.Came(3)
	if p.Tokens() != 3 || p.Room() != 1 {
		t.Fatalf("after 3 came: tokens %d, room %d; want 3 and 1", p.Tokens(), p.Room())
	}
	p.Spend(2)
	if n := p.Reserve(2); n != 2 || p.Tokens() != 0 {
		t.Fatalf("Reserve(2) = %d, tokens %d; want 2, and the unused token dropped", n, p.Tokens())
	}
	if n := p.Reserve(2); n != 0 {
		t.Fatalf("Reserve(2) again = %d; want 0, two are reserved", n)
	}
	if n := p.Open(4, 10, 8); n != 1 || p.Room() != 2 {
		t.Fatalf("Open with 2 reserved = %d, room %d; want 1 and 2", n, p.Room())
	}
	if !p.Pass(5) || p.Tokens() != 2 {
		t.Fatalf("a pass of 5 with 2 reserved brought %d tokens; want 2", p.Tokens())
	}
	if p.Pass(1) {
		t.Fatal("a pass with none reserved brought a token")
	}
	p.Close()
	if p.Room() != 0 {
		t.Errorf("room %d after Close; want 0", p.Room())
	}
}
