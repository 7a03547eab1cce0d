package record

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/safe"
)

// tape is where one recorded agent writes its steps: it encodes each into
// the batch it gathers, and hands the batch to its Recorder when it is
// full and as the agent ends. It is used on the agent's goroutine only.
type tape struct {
	rec    *Recorder
	at     int    // the agent's position in the chain
	name   string // the agent's name
	step   int    // steps recorded so far
	enc    encoder
	line   int  // where the step being recorded starts in enc.buf; -1 for none
	off    bool // the recording stopped
	closed bool
}

// Before records the message evolve is about to take, as a new step.
func (t *tape) Before(m agent.Msg) {
	if t.quiet() {
		return
	}
	t.settle()
	t.step++
	t.line = len(t.enc.buf)
	t.head(instant(m))
	t.enc.buf = append(t.enc.buf, `,"msg":`...)
	t.guard(func() error { return t.enc.message(m) })
}

// After records the effects evolve returned for the step's message.
func (t *tape) After(fx []agent.Effect) {
	if t.line < 0 || t.quiet() {
		return
	}
	t.enc.buf = append(t.enc.buf, `,"fx":`...)
	if !t.guard(func() error { return t.enc.effects(fx) }) {
		return
	}
	t.enc.buf = append(t.enc.buf, "}\n"...)
	t.line = -1
	if len(t.enc.buf) >= batchSize {
		t.handOver()
	}
}

// Final records the status the agent ends with, taken at instant at; ok
// is false when evolve gave none.
func (t *tape) Final(at time.Time, v any, ok bool) {
	if t.quiet() {
		return
	}
	t.settle()
	t.line = len(t.enc.buf)
	t.head(at)
	t.enc.buf = append(t.enc.buf, `,"final":`...)
	if t.guard(func() error { return t.enc.status(v, ok) }) {
		t.enc.buf = append(t.enc.buf, "}\n"...)
		t.line = -1
	}
}

// Close hands over what is left, once the agent has ended.
func (t *tape) Close() {
	if t.closed {
		return
	}
	t.closed = true
	if !t.quiet() {
		t.settle()
		t.handOver()
	}
	t.rec.closeTape()
}

// head starts a line: the agent, its step and the instant.
func (t *tape) head(at time.Time) {
	b := append(t.enc.buf, `{"agent":`...)
	b = strconv.AppendInt(b, int64(t.at), 10)
	t.enc.buf = append(b, `,"name":`...)
	t.enc.string(t.name)
	b = append(t.enc.buf, `,"step":`...)
	b = strconv.AppendInt(b, int64(t.step), 10)
	b = append(b, `,"at":`...)
	t.enc.buf = strconv.AppendInt(b, int64(at.Sub(t.rec.base)), 10)
}

// settle ends the step left open by an evolve that panicked.
func (t *tape) settle() {
	if t.line >= 0 {
		t.enc.buf = append(t.enc.buf, `,"panic":true}`+"\n"...)
		t.line = -1
	}
}

// guard runs an encoding: an error or a panic in it stops the recording
// with an error naming the agent and the step. It reports success.
func (t *tape) guard(encode func() error) bool {
	var err error
	if perr := safe.Do(func() { err = encode() }); perr != nil {
		err = perr
	}
	if err == nil {
		return true
	}
	t.off = true
	t.enc.buf = nil
	t.rec.fail(fmt.Errorf("agent %d (%s), step %d: %w", t.at, t.name, t.step, err))
	return false
}

// quiet reports whether the recording has stopped, and lets go of the
// batch if it has.
func (t *tape) quiet() bool {
	if !t.off && t.rec.stopped.Load() {
		t.off, t.enc.buf = true, nil
	}
	return t.off
}

// handOver hands the batch to the Recorder and starts a new one.
func (t *tape) handOver() {
	if len(t.enc.buf) == 0 {
		return
	}
	t.enc.buf = t.rec.hand(t.enc.buf)
}

// instant returns m's At.
func instant(m agent.Msg) time.Time {
	at, _ := reflect.ValueOf(m).FieldByName("At").Interface().(time.Time)
	return at
}
