package cell_test

import (
	"context"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/testing/echo"
)

func spawnEcho(rt *agent.Runtime, queue int, run func(context.Context, int) (int, error), sink func(int)) (*cell.Agent[int, echo.Status], error) {
	return cell.SpawnForTest[int, echo.Status](rt, echo.Spec(queue, run), sink)
}
