package cell

import (
	"context"
	"fmt"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/spec"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// journal records the messages it is given, as text, and passes its input
// through.
type journal struct{ seen []string }

func journalEvolve(s journal, m agent.Msg) (journal, []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[int]:
		s.seen = append(s.seen[:len(s.seen):len(s.seen)], fmt.Sprint("input", m.Items))
		return s, []agent.Effect{agent.Emit[int]{Values: m.Items}, agent.Demand{N: len(m.Items)}}
	case agent.Set[string]:
		s.seen = append(s.seen[:len(s.seen):len(s.seen)], "set "+m.Value)
	case agent.Query:
		return s, []agent.Effect{agent.Reply[[]string]{To: m.ID, Value: s.seen}}
	}
	return s, nil
}

func TestItemsAndOtherMessagesKeepTheirOrderInABatch(t *testing.T) {
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	held, release := make(chan struct{}), make(chan struct{})
	h, err := SpawnForTest[int, []string](rt, spec.Spec[journal, struct{}, struct{}, int]{
		Name: "journal", Evolve: journalEvolve, Queue: 16,
	}, func(v int) {
		if v == 0 {
			close(held)
			<-release // the actor waits here while the rest gathers
		}
	})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, h.Post(ctx, 0))
	<-held
	require.NoError(t, h.Post(ctx, 1))
	require.NoError(t, h.Post(ctx, 2))
	require.NoError(t, Send(h, agent.Set[string]{Value: "a"}))
	require.NoError(t, h.Post(ctx, 3))
	require.NoError(t, Send(h, agent.Set[string]{Value: "b"}))
	close(release)
	seen, err := h.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"input[0]", "input[1 2]", "set a", "input[3]", "set b"}, seen)
}
