package safe

import "context"

// Work calls an agent's work (spec.Spec's Work), its panic becoming its
// error: for the runtime's workers and a Plan's machines alike.
func Work[W, R any](ctx context.Context, work func(context.Context, uint64, W) (R, error), id uint64, w W) (r R, err error) {
	defer Recover(&err)
	return work(ctx, id, w)
}

// Reuse is Work for work that fills spare, a result emptied for reuse
// (spec.Spec's Reuse).
func Reuse[W, R any](ctx context.Context, reuse func(context.Context, uint64, W, R) (R, error), id uint64, w W, spare R) (r R, err error) {
	defer Recover(&err)
	return reuse(ctx, id, w, spare)
}
