package agent

import (
	"context"
	"log/slog"

	"github.com/rs/zerolog"
)

// slogHandler routes protoactor's log/slog records into l. protoactor names
// one of its attributes "message", which zerolog uses for the log line
// itself; that attribute is renamed "payload" so no key is written twice.
func slogHandler(l zerolog.Logger) slog.Handler {
	if l.GetLevel() == zerolog.Disabled {
		return slog.DiscardHandler
	}
	return renameMessage{zerolog.NewSlogHandler(l.With().Str("lib", "protoactor").Logger())}
}

// renameMessage is a slog.Handler that renames attributes called "message".
type renameMessage struct{ slog.Handler }

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
