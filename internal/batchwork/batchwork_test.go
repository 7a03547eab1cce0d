package batchwork

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// result is the result of one item, as the runner makes it.
type result struct {
	Seq   uint64
	Value int
	Err   error
}

// testAgent returns an Agent that runs work, with the given timeout, and makes
// results of type result.
func testAgent(timeout time.Duration, work func(context.Context, int) (int, error)) Agent[struct{}, int, int, result, struct{}] {
	return Agent[struct{}, int, int, result, struct{}]{
		Name:    "test",
		Work:    work,
		Timeout: timeout,
		Result:  func(seq uint64, v int, err error) result { return result{Seq: seq, Value: v, Err: err} },
		Value:   func(r result) (int, bool) { return r.Value, r.Err == nil },
	}
}

func TestRunWorksOnEachItemInTurn(t *testing.T) {
	var order []int
	p := testAgent(0, func(_ context.Context, v int) (int, error) {
		order = append(order, v)
		switch v {
		case 2:
			panic("two")
		case 3:
			return -1, errors.New("three")
		}
		return 10 * v, nil
	})
	rs := runAll(p, context.Background(), 7, []int{1, 2, 3, 4})
	assert.Equal(t, []int{1, 2, 3, 4}, order, "a panic fails its item alone")
	require.Len(t, rs, 4)
	assert.Equal(t, result{Seq: 7, Value: 10}, rs[0])
	var pe *agent.PanicError
	require.ErrorAs(t, rs[1].Err, &pe)
	assert.Equal(t, "two", pe.Value)
	assert.Contains(t, string(pe.Stack), "batchwork_test.go", "the stack is that of the panic")
	assert.Equal(t, uint64(8), rs[1].Seq)
	assert.Equal(t, result{Seq: 9, Value: -1, Err: rs[2].Err}, rs[2], "the value comes back beside the error")
	assert.EqualError(t, rs[2].Err, "three")
	assert.Equal(t, result{Seq: 10, Value: 40}, rs[3])
}

func TestItemsNotBegunOnceCancelledFailWithTheCause(t *testing.T) {
	doomed := errors.New("doomed")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var began []int
	p := testAgent(0, func(_ context.Context, v int) (int, error) {
		began = append(began, v)
		cancel(doomed)
		return v, nil
	})
	rs := runAll(p, ctx, 0, []int{1, 2, 3})
	assert.Equal(t, []int{1}, began)
	assert.Equal(t, []result{{Seq: 0, Value: 1}, {Seq: 1, Err: doomed}, {Seq: 2, Err: doomed}}, rs,
		"the item that had begun keeps what its work returned")

	began = nil
	rs = runAll(p, ctx, 5, []int{6})
	assert.Empty(t, began, "a batch handed over after the cancellation begins nothing")
	assert.Equal(t, []result{{Seq: 5, Err: doomed}}, rs)
}

func TestEachItemHasItsOwnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := testAgent(100*time.Millisecond, func(_ context.Context, v int) (int, error) {
			time.Sleep(60 * time.Millisecond)
			return v, nil
		})
		start := time.Now()
		rs := runAll(p, context.Background(), 0, []int{0, 1, 2})
		assert.Equal(t, []result{{Seq: 0, Value: 0}, {Seq: 1, Value: 1}, {Seq: 2, Value: 2}}, rs,
			"the batch took 180ms, each item 60ms of its 100ms")
		assert.Equal(t, 180*time.Millisecond, time.Since(start))
	})
}

func TestWorkThatRunsPastItsTimeoutFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		broke := errors.New("broke")
		var deadline time.Time
		p := testAgent(100*time.Millisecond, func(ctx context.Context, v int) (int, error) {
			switch v {
			case 0: // in time
				time.Sleep(99 * time.Millisecond)
				return 10, nil
			case 1: // heeds its context
				deadline, _ = ctx.Deadline()
				<-ctx.Done()
				return 11, ctx.Err()
			case 2: // ignores it, and succeeds late
				time.Sleep(time.Second)
				return 12, nil
			case 3: // ignores it, and fails late
				time.Sleep(time.Second)
				return 13, broke
			default: // heeds it, and returns its cause
				<-ctx.Done()
				return 14, context.Cause(ctx)
			}
		})
		start := time.Now()
		rs := runAll(p, context.Background(), 0, []int{0, 1, 2, 3, 4})
		assert.Equal(t, result{Seq: 0, Value: 10}, rs[0])
		assert.Equal(t, start.Add(199*time.Millisecond), deadline, "item 1's deadline counts from its own start")

		assert.Equal(t, result{Seq: 1, Value: 11, Err: context.DeadlineExceeded}, rs[1], "the work's own error is kept")

		assert.ErrorIs(t, rs[2].Err, context.DeadlineExceeded)
		assert.EqualError(t, rs[2].Err, "test: item 2 ran past its timeout of 100ms: context deadline exceeded")
		assert.Equal(t, 12, rs[2].Value)

		assert.ErrorIs(t, rs[3].Err, context.DeadlineExceeded)
		assert.ErrorIs(t, rs[3].Err, broke, "late, and what the work said")

		assert.ErrorIs(t, rs[4].Err, context.DeadlineExceeded)
		assert.EqualError(t, rs[4].Err, "test: item 4 ran past its timeout of 100ms: context deadline exceeded",
			"the cause of the context's end names the item")
	})
}

func TestWorkThatRunsPastItsTimeoutFailsThoughTheBatchIsCancelledAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		doomed := errors.New("doomed")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		p := testAgent(100*time.Millisecond, func(_ context.Context, v int) (int, error) {
			time.Sleep(150 * time.Millisecond)
			cancel(doomed) // say another item failed, under CancelOnError
			return v, nil
		})
		rs := runAll(p, ctx, 0, []int{1})
		assert.ErrorIs(t, rs[0].Err, context.DeadlineExceeded, "its deadline passed before the cancellation")
	})
}

func TestWorkCancelledBeforeItsTimeoutKeepsItsOwnResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		doomed := errors.New("doomed")
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		p := testAgent(100*time.Millisecond, func(ctx context.Context, v int) (int, error) {
			time.Sleep(50 * time.Millisecond)
			cancel(doomed)
			time.Sleep(100 * time.Millisecond) // returns past the deadline, cancelled before it
			return v, context.Cause(ctx)
		})
		rs := runAll(p, ctx, 0, []int{1})
		assert.Equal(t, []result{{Seq: 0, Value: 1, Err: doomed}}, rs, "a cancellation is not a timeout")
	})
}

// runAll runs items as a Start of p's agent does, on a new result slice.
func runAll(p Agent[struct{}, int, int, result, struct{}], ctx context.Context, seq uint64, items []int) []result {
	rs, err := p.spec().Work(ctx, seq, items)
	if err != nil {
		panic(err)
	}
	return rs
}

func TestSpecRecyclesResultsForTheNextBatch(t *testing.T) {
	p := testAgent(0, func(_ context.Context, v int) (int, error) { return v + 1, nil })
	sp := p.spec()
	ctx := context.Background()
	first, err := sp.Reuse(ctx, 0, []int{1, 2}, nil)
	require.NoError(t, err)
	assert.Equal(t, []result{{Seq: 0, Value: 2}, {Seq: 1, Value: 3}}, first)
	spare := sp.Recycle(first)
	assert.Empty(t, spare, "taken back empty")
	assert.Equal(t, []result{{}, {}}, first[:2], "and cleared: it holds no result")
	next, err := sp.Reuse(ctx, 2, []int{5}, spare)
	require.NoError(t, err)
	assert.Same(t, &first[0], &next[0], "the next batch's results reuse the slice taken back")
	assert.Equal(t, []result{{Seq: 2, Value: 6}}, next)
	big, err := sp.Reuse(ctx, 3, []int{7, 8, 9}, sp.Recycle(next))
	require.NoError(t, err)
	assert.NotSame(t, &first[0], &big[0], "a spare too small is not used")
	assert.Equal(t, []result{{Seq: 3, Value: 8}, {Seq: 4, Value: 9}, {Seq: 5, Value: 10}}, big)
}
