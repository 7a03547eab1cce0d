package logline_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/evolvekit/evolve/internal/testing/logline"
	"github.com/rs/zerolog"
)

func Example() {
	var b bytes.Buffer
	log := zerolog.New(&b)
	log.Info().Str("agent", "fetch").Dict("status", zerolog.Dict().Int("queued", 2)).Msg("status")
	ev := logline.Last(&testing.T{}, b.Bytes())
	fmt.Println(ev.Level, ev.Agent, ev.Message, ev.Status["queued"])
	// Output: info fetch status 2
}
