package agent_test

import (
	"errors"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
)

func TestADeadLettersErrorNamesTheAgentOnceAndTellsTheItemFromItsSeq(t *testing.T) {
	cursed := errors.New("id 7 is cursed")
	for _, c := range []struct {
		n, attempts int
		want        string
	}{
		{2, 3, "parallel: 2 items went to the dead letters; the first (item 7, seq 6) failed after 3 attempts: id 7 is cursed"},
		{1, 1, "parallel: 1 item went to the dead letters; the first (item 7, seq 6) failed after 1 attempt: id 7 is cursed"},
		{3, 0, "parallel: 3 items went to the dead letters; the first (item 7, seq 6) failed without being tried: id 7 is cursed"},
	} {
		err := &agent.DeadLettersError{Agent: "parallel", N: c.n,
			First: agent.DeadLetter{Agent: "parallel", Seq: 6, Item: 7, Err: cursed, Attempts: c.attempts}}
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, cursed)
	}
}
