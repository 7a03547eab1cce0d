package wire

import "time"

// Misses is how many heartbeat intervals of silence make either side give
// the other up: the master a worker, a worker its master, and a node a
// connection that a newer one from the same peer may replace. Package
// remote's doc, under Failures, says what follows.
const Misses = 3

// StageFinished is why a Welcome refuses a Register to a stage that has
// finished: the worker then ends as it does when told so.
const StageFinished = "the stage has finished"

// FinishWait bounds how long a master whose stage finished waits for each
// of its workers to acknowledge the news, all of them together; a worker
// told waits for the master's actor to stop for twice as long at most.
const FinishWait = time.Second
