package moved

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAGateThatHasSeenAStateAsksNoMore(t *testing.T) {
	g := NewGate(true, time.Second)
	assert.True(t, g.May(context.Background(), nil, "q.moved.", time.Now()), "seen at Open: the stream is not asked")
	g = NewGate(false, time.Second)
	g.Saw()
	assert.True(t, g.May(context.Background(), nil, "q.moved.", time.Now()), "seen since: the stream is not asked")
}

func TestAGateAsksAtMostOnceAPeriod(t *testing.T) {
	g := NewGate(false, time.Second)
	t0 := time.Now()
	g.asked = t0 // as if it had just asked and heard of none
	assert.False(t, g.May(context.Background(), nil, "q.moved.", t0.Add(999*time.Millisecond)), "within the period: none, without asking")
}
