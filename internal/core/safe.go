package core

import (
	"context"

	"github.com/evolvekit/evolve/internal/safe"
)

// safelyReuse is safely for work that reuses spare (see Spec.Reuse).
func safelyReuse[W, R any](ctx context.Context, reuse func(context.Context, uint64, W, R) (R, error), id uint64, w W, spare R) (r R, err error) {
	defer safe.Recover(&err)
	return reuse(ctx, id, w, spare)
}

// safely runs work, a panic in it becoming its error (see package safe).
func safely[W, R any](ctx context.Context, work func(context.Context, uint64, W) (R, error), id uint64, w W) (r R, err error) {
	defer safe.Recover(&err)
	return work(ctx, id, w)
}
