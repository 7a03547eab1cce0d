// Package buffer gathers items into batches and flushes them one batch at a
// time (from the package example):
//
//	rt := agent.NewRuntime()
//	defer rt.Shutdown(context.Background())
//	flush := func(_ context.Context, batch []int) error {
//		fmt.Println("insert", len(batch), "rows")
//		return nil
//	}
//	sink := func(batch []int) { fmt.Println("batch", batch) }
//	b, err := buffer.New(rt, buffer.Config[int]{Size: 3}, flush, sink)
//	err = b.Post(ctx, i)
//	b.Close()
//	err = b.Wait(ctx)
//
// Every item accepted goes into exactly one batch, and batches are flushed
// one at a time, in input order. A batch is emitted once its flush
// succeeds; if the flush fails, its items go to the dead letters with the
// flush's error, and Wait reports the first such error. A slow flush slows
// the producer down rather than letting batches pile up.
//
// A batch is cut when it holds [Config.Size] items, when it weighs
// [Config.MaxWeight] (bytes, say, as [Config.Weight] weighs each item), when
// its oldest item has waited [Config.MaxWait], and on Close. An item heavier
// than MaxWeight goes out in a batch of its own, as Akka's
// groupedWeightedWithin does. Each batch is handed to a user [Flush]
// function (a bulk insert, a bulk API call), and once that succeeds it is
// emitted downstream; with a nil Flush each batch is emitted as it is cut. A flush that fails or panics is counted, its batch is
// not emitted, the first such error is what Wait returns, and the agent goes
// on with the next batch. Its items go to the dead letters
// ([Config.DeadLetters], or the chain's), each with the flush's error.
//
// Flushes never overlap and happen in input order: a batch that fills while
// another is being flushed waits for it. The input queue is bounded by
// [Config.Queue]: an item holds its slot until the flush of its batch starts,
// so a slow flush slows the producer down instead of letting batches pile up.
//
// [New] runs a buffer agent on an agent.Runtime and returns its
// agent.Handle, which is safe for concurrent use; [Stage] makes one a stage
// of a compose chain. The whole behaviour is the pure function [Evolve] over
// a [State], a plain value for one goroutine, evolved once per step; a
// flush costs one goroutine hand-over.
//
// The zero [Config] is not valid: Size or MaxWeight is required. MaxWait 0
// means no linger time (a partial batch waits for more items or for Close),
// and Queue 0 picks a default bound.
package buffer
