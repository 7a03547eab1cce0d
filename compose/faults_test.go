package compose_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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

// faulty returns work that passes its item on, or panics, fails, is slow,
// or is slow and ignores its context, each at random: the faults a chain
// must survive without losing or doubling an item.
func faulty(seed uint64) parallel.Work[int, int] {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, 3))
	return func(ctx context.Context, v int) (int, error) {
		mu.Lock()
		kind, d := r.IntN(10), time.Duration(r.IntN(3))*time.Millisecond
		mu.Unlock()
		switch kind {
		case 0:
			panic(fmt.Sprintf("item %d panicked", v))
		case 1, 2:
			return 0, fmt.Errorf("item %d failed", v)
		case 3:
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return 0, context.Cause(ctx)
			}
		case 4:
			time.Sleep(d) // ignores its context
		}
		return v, nil
	}
}

// TestRandomChainsWithFaultsEndEveryItemOnce runs random chains of rate,
// parallel, adaptive and buffer stages whose work panics, fails, is slow or
// ignores its context, with retries, timeouts and dead letters set at
// random, in virtual time; under -race too. Every accepted item ends once:
// as a value at the end of the chain, or as a dead letter.
func TestRandomChainsWithFaultsEndEveryItemOnce(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
				r := rand.New(rand.NewPCG(seed, 9))
				retry := func() parallel.Retry {
					return parallel.Retry{Attempts: 1 + r.IntN(3), Backoff: time.Millisecond, Seed: seed}
				}
				timeout := func() time.Duration { return time.Duration(r.IntN(2)) * time.Millisecond }
				var stages []agent.Stage[int, int]
				if r.IntN(2) == 0 {
					s, err := rate.Stage(rate.Config[int]{Rate: 10000, Burst: 1 + r.IntN(20)})
					require.NoError(t, err)
					stages = append(stages, s)
				}
				for i := range 1 + r.IntN(3) {
					name := fmt.Sprintf("work%d", i)
					var s agent.Stage[int, int]
					var err error
					if r.IntN(3) == 0 {
						s, err = adaptive.Stage(adaptive.Config{Name: name, Max: 1 + r.IntN(8), Unordered: r.IntN(2) == 0,
							Timeout: timeout(), Retry: retry()}, faulty(seed+uint64(i)))
					} else {
						s, err = parallel.Stage(parallel.Config{Name: name, Limit: 1 + r.IntN(6), MaxBatch: 1 + r.IntN(8),
							Unordered: r.IntN(2) == 0, Timeout: timeout(), Retry: retry()}, faulty(seed+uint64(i)))
					}
					require.NoError(t, err)
					stages = append(stages, s)
				}
				chain := stages[0]
				for _, s := range stages[1:] {
					chain = compose.Pipe2(chain, s)
				}
				batches, err := buffer.Stage(buffer.Config[int]{Size: 1 + r.IntN(20), MaxWait: time.Millisecond},
					nil)
				require.NoError(t, err)

				var mu sync.Mutex
				var got, dead []int
				n := 50 + r.IntN(150)
				c, err := compose.Start(rt, compose.Pipe2(chain, batches), func(b []int) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, b...)
				}, compose.WithDeadLetters(func(d agent.DeadLetter) {
					mu.Lock()
					defer mu.Unlock()
					dead = append(dead, d.Item.(int))
				}))
				require.NoError(t, err)
				postRange(t, c, n)
				c.Close()
				err = c.Wait(context.Background())

				mu.Lock()
				defer mu.Unlock()
				var dl *agent.DeadLettersError
				if len(dead) > 0 {
					require.True(t, errors.As(err, &dl), "seed %d: Wait says items went to the dead letters: %v", seed, err)
				} else {
					require.NoError(t, err, "seed %d", seed)
				}
				all := slices.Concat(got, dead)
				slices.Sort(all)
				require.Len(t, all, n, "seed %d: %d values and %d dead letters", seed, len(got), len(dead))
				for i, v := range all {
					require.Equal(t, i, v, "seed %d: an item lost or doubled", seed)
				}
				assert.NotEmpty(t, got, "seed %d", seed)
			})
		})
	}
}
