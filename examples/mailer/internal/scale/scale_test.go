package scale

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeFleet counts what a Scaler starts and stops.
type fakeFleet struct {
	next    int
	stopped []string
	fail    error
}

func (f *fakeFleet) Start() (string, error) {
	if f.fail != nil {
		return "", f.fail
	}
	f.next++
	return fmt.Sprintf("w%d", f.next), nil
}

func (f *fakeFleet) Stop(name string) error {
	f.stopped = append(f.stopped, name)
	return nil
}

func TestParseReadsMinMaxAndRefusesTheRest(t *testing.T) {
	least, most, err := Parse("2:8", 64)
	require.NoError(t, err)
	assert.Equal(t, [2]int{2, 8}, [2]int{least, most})
	for s, want := range map[string]string{
		"8":     `want MIN:MAX, two whole numbers, not "8"`,
		"a:b":   `want MIN:MAX, two whole numbers, not "a:b"`,
		"0:4":   `want 1 <= MIN <= MAX <= 64, not "0:4"`,
		"5:4":   `want 1 <= MIN <= MAX <= 64, not "5:4"`,
		"1:100": `want 1 <= MIN <= MAX <= 64, not "1:100"`,
	} {
		_, _, err := Parse(s, 64)
		assert.EqualError(t, err, want, s)
	}
}

// The wants are applied within bounds, the newest workers stopped first,
// a line each.
func TestTheScalerFollowsTheWantsWithinItsBounds(t *testing.T) {
	f := &fakeFleet{next: 1}
	var out bytes.Buffer
	s := New(1, 4, f, []string{"w1"}, &out, time.Now())
	s.apply(3)
	s.apply(9) // beyond 4
	s.apply(0) // below 1
	s.apply(1) // as it is: no line
	assert.Equal(t, []string{"w4", "w3", "w2"}, f.stopped)
	assert.True(t, s.Stopped("w3"))
	assert.False(t, s.Stopped("w1"))
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	require.Len(t, lines, 3, out.String())
	assert.Contains(t, string(lines[0]), "the stage wants 3 workers: started w2, started w3 (3 running)")
	assert.Contains(t, string(lines[1]), "the stage wants 9 workers: started w4 (4 running)")
	assert.Contains(t, string(lines[2]), "the stage wants 0 workers: stopped w4, stopped w3, stopped w2 (1 running)")
	assert.Equal(t, "1 to 4 workers as the stage wanted; at most 4 at once, 3 changes", s.Summary())
}

func TestAWorkerThatWillNotStartIsSaid(t *testing.T) {
	f := &fakeFleet{fail: errors.New("no room")}
	var out bytes.Buffer
	s := New(1, 4, f, []string{"w1"}, &out, time.Now())
	s.apply(2)
	assert.Contains(t, out.String(), "the stage wants 2 workers: no room (1 running)")
}

// Want never blocks, and the latest want replaces one not yet applied.
func TestTheLatestWantWins(t *testing.T) {
	f := &fakeFleet{next: 1}
	var out bytes.Buffer
	s := New(1, 8, f, []string{"w1"}, &out, time.Now())
	for n := range 5 {
		s.Want(n + 2)
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); s.Run(quit) }()
	require.Eventually(t, func() bool { return s.Summary() != "1 to 8 workers as the stage wanted; at most 1 at once, 0 changes" }, 5*time.Second, time.Millisecond)
	close(quit)
	<-done
	assert.Equal(t, 6, f.next, "one change, to the last want, 6")
	assert.Equal(t, "1 to 8 workers as the stage wanted; at most 6 at once, 1 changes", s.Summary())
}
