package agent_test

import (
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"
)

func discardLogs(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }
