package main

import (
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/evolvekit/evolve/compose"
)

// The messages the display gets from the chain and its helpers.
type (
	passedMsg  rune                // a key the rate agent let through
	writtenMsg []rune              // a line now in the file
	statusMsg  compose.Status      // the chain's latest status
	drainedMsg struct{ err error } // the chain has finished: every key is in the file unless err
	failedMsg  struct{ err error } // a helper of the display failed
	tickMsg    time.Time           // the display's clock: a second has passed
)

// tickEvery is how often the display's clock ticks: the elapsed time it
// shows moves a second at a time.
const tickEvery = time.Second

// noteFor is how long a transient message stays in the footer: it goes at
// the first tick at least noteFor after the tick before it was set, so it
// is seen for between noteFor-tickEvery and noteFor.
const noteFor = 3 * time.Second

// tick asks for the next tickMsg.
func tick() tea.Cmd {
	return tea.Tick(tickEvery, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// phase is where the session is.
type phase int

const (
	typing   phase = iota // keys are taken
	draining              // no more keys; the chain is finishing
	finished              // the chain has finished
	aborted               // the user gave up on the chain
)

// keyQueue is where the model puts the keys typed.
type keyQueue interface {
	add(keys ...rune) bool
	end()
	waiting() int
}

// maxShown bounds the keys and lines the model keeps for display.
const maxShown = 4096

// model is the interactive display's state. Update never waits on the
// chain: keys go to a keyQueue, and Enter logs the agents' status the model
// was last sent.
type model struct {
	cfg  config
	keys keyQueue
	logs *logPane

	width, height int

	start  time.Time // when the display began
	now    time.Time // the last tick's time: the clock the model goes by
	legend bool      // the legend is shown in place of the panes and the log

	phase   phase
	armed   bool      // Ctrl-C was pressed once
	ending  string    // the key that ended the input
	err     error     // the chain's or a helper's failure
	note    string    // a transient message in the footer
	noteAt  time.Time // the clock when note was set
	typed   int       // keys taken from the keyboard
	through int       // keys the rate agent let through
	inFile  int       // keys in the file
	passed  []rune    // the last keys through, for the left pane
	lines   []string
	status  compose.Status
}

// newModel returns the display of a session that begins now: keys go to
// keys, and Enter logs to logs.
func newModel(cfg config, keys keyQueue, logs *logPane) model {
	now := time.Now()
	return model{cfg: cfg, keys: keys, logs: logs, width: 80, height: 24, start: now, now: now}
}

// Init starts the display's clock; the chain's helpers send the rest of
// what the model needs.
func (m model) Init() tea.Cmd { return tick() }

// Update handles a key, or news from the chain.
func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return m.key(msg)
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case passedMsg:
		m.through++
		m.passed = keepLast(append(m.passed, rune(msg)), maxShown)
	case writtenMsg:
		m.inFile += len(msg)
		m.lines = keepLast(append(m.lines, string(msg)), maxShown)
	case statusMsg:
		m.status = compose.Status(msg)
	case tickMsg:
		m.now = time.Time(msg)
		if m.note != "" && !m.now.Before(m.noteAt.Add(noteFor)) {
			m.note = ""
		}
		return m, tick()
	case drainedMsg:
		m.phase, m.err = finished, msg.err
		return m, tea.Quit
	case failedMsg:
		m.phase, m.err = finished, msg.err
		return m, tea.Quit
	}
	return m, nil
}

// keyHook sees every key press first. It does nothing, but in a build for
// the tests (panic_hook.go) that makes a key panic.
var keyHook = func(tea.KeyMsg) {}

// key handles one key press.
func (m model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	keyHook(k)
	if k.Type == tea.KeyCtrlC {
		if m.armed {
			m.phase = aborted
			return m, tea.Quit
		}
		m.armed = true
		return m, nil
	}
	m.armed = false
	if k.Type == tea.KeyEsc && m.legend {
		m.legend = false // Esc closes the legend first: it never finishes by surprise
		return m, nil
	}
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		if !k.Alt {
			m.take(k.Runes, !k.Paste)
		}
	case tea.KeyEnter:
		if m.phase == typing {
			logAgents(m.logs.logger(), m.status)
			m.say("status logged")
		}
	case tea.KeyCtrlD:
		return m.drain("Ctrl-D"), nil
	case tea.KeyEsc:
		return m.drain("Esc"), nil
	}
	return m, nil
}

// say shows a transient message in the footer; a tick clears it.
func (m *model) say(note string) {
	m.note, m.noteAt = note, m.now
}

// legendKey is the key that shows or hides the legend.
const legendKey = '?'

// take queues the runes of a key press (or a paste) as keys, all but
// control characters: a newline, a tab or an escape is never a key. When
// typed, a ? shows or hides the legend rather than being a key; in a paste,
// it is a key like any other. Once the input has ended, no key is taken.
func (m *model) take(runes []rune, typed bool) {
	keys := make([]rune, 0, len(runes))
	for _, r := range runes {
		switch {
		case typed && r == legendKey:
			m.legend = !m.legend
		case !unicode.IsControl(r):
			keys = append(keys, r)
		}
	}
	if m.phase == typing && len(keys) > 0 && m.keys.add(keys...) {
		m.typed += len(keys)
	}
}

// drain stops taking keys; the chain finishes what it holds. Once the
// input has ended, it does nothing.
func (m model) drain(by string) model {
	if m.phase != typing {
		return m
	}
	m.phase, m.ending = draining, by
	m.keys.end()
	return m
}

// keepLast returns the last n elements of s.
func keepLast[T any](s []T, n int) []T {
	if len(s) <= n {
		return s
	}
	return append(s[:0:0], s[len(s)-n:]...)
}
