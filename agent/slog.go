package agent

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// slogHandler routes protoactor's log/slog records of level warning and
// above into l; its info and debug records ("actor system started", say)
// are dropped, so a runtime says nothing of its own accord. protoactor
// names one of its attributes "message", which zerolog uses for the log
// line itself; that attribute is renamed "payload" so no key is written
// twice.
func slogHandler(l zerolog.Logger) slog.Handler {
	if l.GetLevel() == zerolog.Disabled {
		return slog.DiscardHandler
	}
	return renameMessage{zerolog.NewSlogHandler(l.With().Str("lib", "protoactor").Logger())}
}

// renameMessage is a slog.Handler that renames attributes called "message"
// and passes on only warnings and errors.
type renameMessage struct{ slog.Handler }

// Enabled reports whether level is a warning or worse and l would log it.
func (h renameMessage) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.Handler.Enabled(ctx, level)
}

// Handle writes r with its "message" attributes renamed "payload".
func (h renameMessage) Handle(ctx context.Context, r slog.Record) error {
	clean := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == zerolog.MessageFieldName {
			a.Key = "payload"
		}
		clean.AddAttrs(a)
		return true
	})
	return h.Handler.Handle(ctx, clean)
}

// WithAttrs keeps the renaming on the derived handler.
func (h renameMessage) WithAttrs(as []slog.Attr) slog.Handler {
	return renameMessage{h.Handler.WithAttrs(as)}
}

// WithGroup keeps the renaming on the derived handler.
func (h renameMessage) WithGroup(name string) slog.Handler {
	return renameMessage{h.Handler.WithGroup(name)}
}
