package main

import (
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
)

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
// chain: keys go to a keyQueue, and Enter only asks the agents to log.
type model struct {
	cfg       config
	keys      keyQueue
	logStatus func()
	logs      *logPane

	width, height int

	phase   phase
	armed   bool   // Ctrl-C was pressed once
	ending  string // the key that ended the input
	err     error  // the chain's or a helper's failure
	note    string // a one-line message in the footer
	typed   int    // keys taken from the keyboard
	through int    // keys the rate agent let through
	inFile  int    // keys in the file
	passed  []rune // the last keys through, for the left pane
	lines   []string
	status  compose.Status
}

// newModel returns the display of a session that has not begun: keys go to
// keys, and Enter calls logStatus.
func newModel(cfg config, keys keyQueue, logStatus func(), logs *logPane) model {
	return model{cfg: cfg, keys: keys, logStatus: logStatus, logs: logs, width: 80, height: 24}
}

// Init does nothing: the chain's helpers send what the model needs.
func (m model) Init() tea.Cmd { return nil }

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
		m.armed, m.note = true, "press Ctrl-C again to abort"
		return m, nil
	}
	m.armed, m.note = false, ""
	if m.phase != typing {
		return m, nil
	}
	switch k.Type {
	case tea.KeyEnter:
		m.logStatus()
		m.note = "status logged"
	case tea.KeyCtrlD:
		return m.drain("Ctrl-D"), nil
	case tea.KeyEsc:
		return m.drain("Esc"), nil
	case tea.KeyRunes, tea.KeySpace:
		if !k.Alt {
			m.take(k.Runes)
		}
	}
	return m, nil
}

// take queues the runes of a key press (or a paste) as keys, all but
// control characters: a newline, a tab or an escape is never a key.
func (m *model) take(runes []rune) {
	keys := make([]rune, 0, len(runes))
	for _, r := range runes {
		if !unicode.IsControl(r) {
			keys = append(keys, r)
		}
	}
	if len(keys) > 0 && m.keys.add(keys...) {
		m.typed += len(keys)
	}
}

// drain stops taking keys; the chain finishes what it holds.
func (m model) drain(by string) model {
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
