package master

import (
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// trace gives the tasks of msgs, going to the worker at addr, the
// contexts of their items' spans, for the workers to make the spans of
// their work children of them (see wire.Tasks), and records each attempt
// on its item's span: a message none of whose items is traced carries
// none, and a master that traces nothing (no Config.Spans) adds nothing
// at all.
func (l *link[I, O]) trace(msgs []*wire.Tasks, addr string) {
	if l.cfg.Spans == nil {
		return
	}
	for _, msg := range msgs {
		traceTasks(msg, l.cfg.Spans)
		for i, item := range msg.Items {
			if i < len(msg.Attempts) {
				l.cfg.Spans.Dispatched(item, int(msg.Attempts[i]), addr)
			}
		}
	}
}

// traceTasks gives the tasks of msg the contexts of their items' spans in
// spans. A traceparent fits in the room wire.PerItem keeps for each
// task; a tracestate, as long as a peer chooses, is carried while those of
// msg take no more than wire.TraceStateRoom bytes, and dropped beyond.
func traceTasks(msg *wire.Tasks, spans *trace.Line) {
	room := wire.TraceStateRoom
	for i, item := range msg.Items {
		parent, state := trace.Traceparent(spans.Context(item))
		if parent != "" && msg.Traceparent == nil {
			msg.Traceparent = make([]string, i, len(msg.Items))
		}
		if msg.Traceparent != nil {
			msg.Traceparent = append(msg.Traceparent, parent)
		}
		if len(state) > room {
			state = ""
		}
		room -= len(state)
		if state != "" && msg.Tracestate == nil {
			msg.Tracestate = make([]string, i, len(msg.Items))
		}
		if msg.Tracestate != nil {
			msg.Tracestate = append(msg.Tracestate, state)
		}
	}
}
