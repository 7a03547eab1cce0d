package main

import (
	"context"
	"errors"

	"github.com/evolvekit/evolve/agent"
)

// errNoAuto is returned for -p auto while the agent that learns its limit
// is not part of this build.
var errNoAuto = errors.New("-p auto: the adaptive agent is not available yet; give -p a number")

// adaptiveStage returns the stage for -p auto: an agent that learns how many
// keys to work on at once.
func adaptiveStage(func(context.Context, rune) (rune, error)) (agent.Stage[rune, rune], error) {
	return agent.Stage[rune, rune]{}, errNoAuto
}
