package main

import (
	"context"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
)

// autoConfig is the adaptive agent of -p auto: it starts at 2 keys in
// flight, as the default -p does, and learns a limit between 1 and 64.
var autoConfig = adaptive.Config{Min: 1, Max: 64, Initial: 2}

// adaptiveStage returns the stage for -p auto: an agent that learns how many
// keys to work on at once.
func adaptiveStage(work func(context.Context, rune) (rune, error)) (agent.Stage[rune, rune], error) {
	return adaptive.Stage(autoConfig, work)
}
