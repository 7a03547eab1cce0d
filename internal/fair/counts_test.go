package fair

import "testing"

func TestCountsBoundEachKeyAndForgetAKeyAtZero(t *testing.T) {
	c := NewCounts(2)
	for i, want := range []bool{true, true, false} {
		if got := c.Take("a"); got != want {
			t.Fatalf("take %d of a: %v, want %v", i, got, want)
		}
	}
	if !c.Take("b") {
		t.Fatal("b is refused beside a full a")
	}
	c.Release([]Run{{Key: "a", N: 1}})
	if !c.Take("a") {
		t.Fatal("a is refused after one of its slots came back")
	}
	c.Release([]Run{{Key: "a", N: 2}, {Key: "b", N: 1}, {Key: "z", N: 3}})
	if len(c.keyed) != 0 {
		t.Fatalf("keys kept at zero: %v", c.keyed)
	}
	for i, want := range []bool{true, true, false} {
		if got := c.Take("a"); got != want {
			t.Fatalf("take %d of a, forgotten and counted again: %v, want %v", i, got, want)
		}
	}
}
