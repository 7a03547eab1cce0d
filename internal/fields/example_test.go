package fields_test

import (
	"os"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fields"
	"github.com/rs/zerolog"
)

// status is the status of an agent of one's own.
type status struct {
	agent.Load
	MaxWait time.Duration
	Tags    []string
}

func Example() {
	log := zerolog.New(os.Stdout)
	st := status{Load: agent.Load{Queued: 2, Demand: agent.Unbounded}, MaxWait: 5 * time.Millisecond, Tags: []string{"gpu"}}
	log.Info().Object("status", fields.Object(st)).Msg("status")
	// Output:
	// {"level":"info","status":{"queued":2,"in_flight":0,"done":0,"failed":0,"demand":"unbounded","max_wait":5,"tags":["gpu"]},"message":"status"}
}
