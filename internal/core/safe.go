package core

import (
	"context"

	"github.com/evolvekit/evolve/internal/safe"
)

// safely runs work, a panic in it becoming its error (see package safe).
func safely[W, R any](ctx context.Context, work func(context.Context, uint64, W) (R, error), id uint64, w W) (r R, err error) {
	defer safe.Recover(&err)
	return work(ctx, id, w)
}
