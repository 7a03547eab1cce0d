package compose_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attempts records the instant of every attempt of the work, and fails
// one in three at random (the same ones for a seed).
type attempts struct {
	mu    sync.Mutex
	at    []time.Time
	tries map[int]int
	seed  uint64
}

func (a *attempts) work(_ context.Context, v int) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = append(a.at, time.Now())
	a.tries[v]++
	if (uint64(v)*0x9e3779b97f4a7c15^uint64(a.tries[v])*0xbf58476d1ce4e5b9^a.seed)%3 == 0 {
		return 0, fmt.Errorf("item %d failed attempt %d", v, a.tries[v])
	}
	return v, nil
}

// conforms reports the first pair of attempts, i before j, that a token
// bucket of rate r and burst b could not have let through: more than b +
// r·(t_j - t_i) attempts in [t_i, t_j].
func conforms(at []time.Time, r float64, b int) error {
	at = slices.Clone(at)
	slices.SortFunc(at, time.Time.Compare)
	for i := range at {
		for j := i; j < len(at); j++ {
			allowed := float64(b) + r*at[j].Sub(at[i]).Seconds() + 1e-9
			if float64(j-i+1) > allowed {
				return fmt.Errorf("%d attempts in the %v from attempt %d, a bucket of %g/s and burst %d allows %.2f",
					j-i+1, at[j].Sub(at[i]), i, r, b, allowed)
			}
		}
	}
	return nil
}

// TestRetriesKeepThePaceOfTheRateStageInFront runs rate → parallel and
// rate → adaptive chains whose work fails one attempt in three and is
// retried at once (a backoff of a nanosecond), in virtual time: every
// attempt, retries included, is one the rate stage's bucket lets
// through, every item comes out once, and the rate stage granted a pass
// for each retry.
func TestRetriesKeepThePaceOfTheRateStageInFront(t *testing.T) {
	const n, perSecond, burst = 300, 100.0, 5
	retry := parallel.Retry{Attempts: 6, Backoff: time.Nanosecond, MaxBackoff: time.Nanosecond}
	for _, kind := range []string{"parallel", "adaptive"} {
		t.Run(kind, func(t *testing.T) {
			agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
				a := &attempts{tries: map[int]int{}, seed: 5}
				var work agent.Stage[int, int]
				var err error
				if kind == "parallel" {
					work, err = parallel.Stage(parallel.Config{Limit: 8, Retry: retry}, a.work)
				} else {
					work, err = adaptive.Stage(adaptive.Config{Max: 8, Retry: retry}, a.work)
				}
				require.NoError(t, err)
				pace, err := rate.Stage(rate.Config[int]{Name: "pace", Rate: perSecond, Burst: burst})
				require.NoError(t, err)

				var mu sync.Mutex
				var got, dead []int
				c, err := compose.Start(rt, compose.Pipe2(pace, work), func(v int) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, v)
				}, compose.WithDeadLetters(func(d agent.DeadLetter) {
					mu.Lock()
					defer mu.Unlock()
					dead = append(dead, d.Item.(int))
				}))
				require.NoError(t, err)
				postRange(t, c, n)
				c.Close()
				err = c.Wait(context.Background())
				var dl *agent.DeadLettersError
				if len(dead) > 0 {
					require.True(t, errors.As(err, &dl), "%v", err)
				} else {
					require.NoError(t, err)
				}

				all := slices.Concat(got, dead)
				slices.Sort(all)
				require.Len(t, all, n)
				for i, v := range all {
					require.Equal(t, i, v, "an item lost or doubled")
				}
				require.Greater(t, len(a.at), n+n/5, "a third of the attempts fail: there were retries")
				require.NoError(t, conforms(a.at, perSecond, burst))
				st, err := c.Status(context.Background())
				require.NoError(t, err)
				var pst rate.Status
				for _, s := range st.Agents {
					if v, ok := s.Detail.(rate.Status); ok {
						pst = v
					}
				}
				assert.Equal(t, len(a.at)-n, pst.Granted, "a pass for every retry")
				assert.Equal(t, n, pst.Done)
			})
		})
	}
}

// TestAParallelStageWithoutAPacerRetriesAtOnce runs a parallel stage with
// retries at the head of a chain, with no rate stage in front: its passes
// are granted at once, and it retries as often as the work fails.
func TestAParallelStageWithoutAPacerRetriesAtOnce(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		a := &attempts{tries: map[int]int{}, seed: 1}
		work, err := parallel.Stage(parallel.Config{Limit: 4, Retry: parallel.Retry{Attempts: 20, Backoff: time.Nanosecond}}, a.work)
		require.NoError(t, err)
		var got []int
		c, err := compose.Start(rt, work, func(v int) { got = append(got, v) })
		require.NoError(t, err)
		postRange(t, c, 50)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		slices.Sort(got)
		assert.Len(t, got, 50)
		assert.Greater(t, len(a.at), 60)
	})
}

// TestAttemptsBehindAnOrderedRetryKeepThePace runs, in virtual time, the
// chain of a client of a server that fails a fifth of its requests: rate
// 200/s with a burst of 5, a parallel stage of 8 in input order that
// tries each item 5 times with a backoff, half of the failures asking for
// 50 ms with agent.RetryAfter, then a buffer. While the results wait for
// an earlier item's retry, the parallel stage starts nothing new, and the
// rate stage keeps the items: every window of attempts stays within
// burst + rate·t, and every item comes out once.
func TestAttemptsBehindAnOrderedRetryKeepThePace(t *testing.T) {
	const n, perSecond, burst = 300, 200.0, 5
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var mu sync.Mutex
		var at []time.Time
		tries := map[int]int{}
		work := func(_ context.Context, v int) (int, error) {
			mu.Lock()
			at = append(at, time.Now())
			tries[v]++
			h := uint64(v)*0x9e3779b97f4a7c15 ^ uint64(tries[v])*0xbf58476d1ce4e5b9
			mu.Unlock()
			time.Sleep(time.Duration(2+h%11) * time.Millisecond)
			switch h % 10 {
			case 0:
				return 0, fmt.Errorf("item %d: 503", v)
			case 1:
				return 0, agent.RetryAfter(fmt.Errorf("item %d: 503", v), 50*time.Millisecond)
			}
			return v, nil
		}
		pace, err := rate.Stage(rate.Config[int]{Rate: perSecond, Burst: burst})
		require.NoError(t, err)
		fetch, err := parallel.Stage(parallel.Config{Limit: 8, Retry: parallel.Retry{Attempts: 5, Backoff: 10 * time.Millisecond}}, work)
		require.NoError(t, err)
		batches, err := buffer.Stage(buffer.Config[int]{Size: 10}, nil)
		require.NoError(t, err)
		var got []int
		c, err := compose.Start(rt, compose.Pipe3(pace, fetch, batches), func(b []int) { got = append(got, b...) })
		require.NoError(t, err)
		postRange(t, c, n)
		c.Close()
		require.NoError(t, c.Wait(context.Background()))
		require.Len(t, got, n)
		for i, v := range got {
			require.Equal(t, i, v, "in order, once")
		}
		require.Greater(t, len(at), n+n/10, "a fifth of the attempts fail: there were retries")
		require.NoError(t, conforms(at, perSecond, burst))
	})
}
