package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/internal/fields"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyLog is a keyQueue that records what the model gives it.
type keyLog struct {
	keys  []rune
	ended bool
}

func (q *keyLog) add(keys ...rune) bool {
	if q.ended {
		return false
	}
	q.keys = append(q.keys, keys...)
	return true
}
func (q *keyLog) end()         { q.ended = true }
func (q *keyLog) waiting() int { return len(q.keys) }

// testModel returns a model on a keyLog, and its log pane.
func testModel() (model, *keyLog, *logPane) {
	q, logs := &keyLog{}, newLogPane(10)
	m := newModel(defaults(), q, logs)
	m.width, m.height = 100, 30
	return m, q, logs
}

// press sends msgs to m's Update, one after another, and returns the model
// and the command of the last.
func press(t *testing.T, m model, msgs ...tea.Msg) (model, tea.Cmd) {
	t.Helper()
	var cmd tea.Cmd
	for _, msg := range msgs {
		var next tea.Model
		next, cmd = m.Update(msg)
		m = next.(model)
	}
	return m, cmd
}

func runes(s string) tea.KeyMsg      { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
func keyOf(k tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: k} }

// quits reports whether cmd is tea.Quit.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// screen returns m's view without styling.
func screen(m model) string { return ansi.Strip(m.View()) }

func TestModelQueuesTypedKeysInOrder(t *testing.T) {
	m, q, _ := testModel()
	m, cmd := press(t, m,
		runes("hello"),
		tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}},
		runes("wörld 😀"),
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}, Alt: true}, // Alt-x is not a key
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\tb\r\nc"), Paste: true},
		keyOf(tea.KeyUp),
	)
	assert.Nil(t, cmd)
	assert.Equal(t, "hello wörld 😀abc", string(q.keys))
	assert.Equal(t, 16, m.typed)
	assert.Contains(t, screen(m), "16 typed · 0 in the file · 0 through the rate agent · 16 waiting to enter the chain")
}

func TestModelEnterLogsStatus(t *testing.T) {
	m, _, logs := testModel()
	m, cmd := press(t, m, keyOf(tea.KeyEnter))
	assert.Nil(t, cmd)
	require.Len(t, logs.tail(10), 1)
	assert.Contains(t, logs.tail(1)[0], "INF no status yet")
	assert.Contains(t, screen(m), "status logged")
}

func TestModelShowsKeysThroughAndLinesInTheFile(t *testing.T) {
	m, _, _ := testModel()
	msgs := []tea.Msg{runes("hello world")}
	for _, k := range "hello w" {
		msgs = append(msgs, passedMsg(k))
	}
	msgs = append(msgs, writtenMsg("hello"))
	m, _ = press(t, m, msgs...)
	s := screen(m)
	assert.Contains(t, s, "│ hello w ")
	assert.Contains(t, s, "│ hello ")
	assert.Contains(t, s, "11 typed")
	assert.Contains(t, s, "5 in the file · 7 through the rate agent")
}

// stage returns the status compose gives of a stage whose agent reported
// detail, with load as its agent.Load.
func stage(name string, load agent.Load, detail any) compose.AgentStatus {
	return compose.AgentStatus{Name: name, Load: load, Detail: detail}
}

func TestModelShowsALineOfStatusPerAgent(t *testing.T) {
	m, _, _ := testModel()
	for _, name := range []string{"rate", "parallel", "buffer"} {
		assert.Contains(t, screen(m), fmt.Sprintf("%-9s …\n", name), "no status yet")
	}
	rl := agent.Load{Queued: 3, Done: 4, Demand: 64}
	pl := agent.Load{Queued: 1, InFlight: 2, Done: 7, Failed: 1, Demand: 20}
	bl := agent.Load{Queued: 4, InFlight: 10, Done: 10, Demand: agent.Unbounded}
	m, _ = press(t, m, statusMsg(compose.Status{Agents: []compose.AgentStatus{
		stage("rate", rl, rate.Status{Load: rl, Rate: 2, Burst: 1, Tokens: 0.5}),
		stage("parallel", pl, parallel.Status{Load: pl, Limit: 2, Held: 1}),
		stage("buffer", bl, buffer.Status{Load: bl, Size: 10, Pending: 4, Flushed: 1}),
	}}))
	s := screen(m)
	assert.Contains(t, s, "rate        3 queued   0 in flight  0.50/1 tokens  2 keys/s  4 done  demand 64\n")
	assert.Contains(t, s, "parallel    1 queued   2 in flight  limit 2  1 held  7 done  1 failed  demand 20\n")
	assert.Contains(t, s, "buffer      4 queued  10 flushing  line 4/10  1 flushed  10 done  demand unbounded\n",
		"the line the buffer writes is flushing, not in flight")
	assert.NotContains(t, s, "10 in flight")
	assert.NotContains(t, s, strconv.Itoa(agent.Unbounded))
}

// chainStatus is the status of a chain of the three stages, as compose
// gives it: first to last, the buffer writing a line.
func chainStatus() statusMsg {
	rl := agent.Load{Queued: 3, Done: 4, Demand: 0}
	pl := agent.Load{Queued: 1, InFlight: 2, Done: 7, Demand: 20}
	bl := agent.Load{Queued: 4, InFlight: 10, Done: 10, Demand: agent.Unbounded}
	return statusMsg(compose.Status{Agents: []compose.AgentStatus{
		stage("rate", rl, rate.Status{Load: rl, Rate: 2, Burst: 1, Tokens: 0.56}),
		stage("parallel", pl, parallel.Status{Load: pl, Limit: 2, Held: 1}),
		stage("buffer", bl, buffer.Status{Load: bl, Size: 10, Pending: 4, Flushed: 1}),
	}})
}

// logShown returns the log lines on m's screen: those between the log's
// title and the footer.
func logShown(t *testing.T, m model) []string {
	t.Helper()
	s := screen(m)
	_, after, ok := strings.Cut(s, "\nlog\n")
	require.True(t, ok, "the screen shows the log: %s", s)
	var lines []string
	for _, l := range strings.Split(after, "\n")[:logRows] {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestEnterLogsEveryAgentInTheChainsOrder(t *testing.T) {
	m, _, _ := testModel()
	m, _ = press(t, m, chainStatus())
	for range 3 {
		m, _ = press(t, m, keyOf(tea.KeyEnter))
		lines := logShown(t, m)
		require.GreaterOrEqual(t, len(lines), 3)
		for i, name := range []string{"rate", "parallel", "buffer"} {
			assert.Contains(t, lines[len(lines)-3+i], "INF status "+name+" ", "line %d of %q", i, lines)
		}
	}
	assert.Contains(t, logShown(t, m)[3], "INF status buffer 4 queued · 10 flushing · 10 done", "the log says flushing too")
	assert.Contains(t, logShown(t, m)[1], "INF status rate 3 queued · 0 in flight · 0.56 tokens · 4 done")
}

func TestATransientMessageClearsOnATickAFewSecondsLater(t *testing.T) {
	m, _, _ := testModel()
	assert.NotNil(t, m.Init(), "the model's clock starts with it")
	m, _ = press(t, m, tickMsg(m.start.Add(time.Second)), keyOf(tea.KeyEnter))
	assert.Contains(t, screen(m), "status logged")
	m, cmd := press(t, m, tickMsg(m.start.Add(3*time.Second)))
	assert.NotNil(t, cmd, "every tick asks for the next")
	assert.Contains(t, screen(m), "status logged", "two seconds on, it is still there")
	m, _ = press(t, m, tickMsg(m.start.Add(4*time.Second)))
	assert.NotContains(t, screen(m), "status logged", "three seconds on, it is gone")

	m, _ = press(t, m, keyOf(tea.KeyCtrlC), tickMsg(m.start.Add(time.Minute)))
	assert.Contains(t, screen(m), "press Ctrl-C again to abort", "a question waiting for its answer stays")
}

func TestTheScreenShowsTheTimeElapsed(t *testing.T) {
	m, _, _ := testModel()
	assert.Contains(t, screen(m), "elapsed 0:00")
	m, _ = press(t, m, tickMsg(m.start.Add(65*time.Second+300*time.Millisecond)))
	assert.Contains(t, screen(m), "elapsed 1:05")
	m, _ = press(t, m, keyOf(tea.KeyEnter), tickMsg(m.start.Add(time.Hour+2*time.Minute+5*time.Second)))
	assert.Contains(t, screen(m), "elapsed 1:02:05")
	m, _ = press(t, m, runes("abc"), keyOf(tea.KeyEsc))
	assert.Regexp(t, `Esc: finishing\.\.\. 3 keys to go +elapsed 1:02:05$`, screen(m), "a message and the time share the line")
}

func TestEscFinishesInTheSameWordsEverywhere(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	docText := strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", "")), " ")
	usage := strings.Join(strings.Fields(usageText), " ")
	for _, k := range keyUses {
		assert.Contains(t, usage, k.key+" "+k.does, "-h")
		assert.Contains(t, string(readme), "| "+k.key+" | "+k.does+" |", "the README's table")
		assert.Contains(t, docText, k.key+" "+k.does, "the package doc")
		assert.Contains(t, ansi.Strip(footer), k.footer)
	}
	for _, verb := range []string{"finish", "abort"} {
		assert.Contains(t, ansi.Strip(footer), ": "+verb)
		assert.Contains(t, usage, " "+verb+": ")
	}
	assert.Contains(t, usage, "Ctrl-D or Esc finish: stops taking keys")
	m, _, _ := testModel()
	assert.Contains(t, screen(m), "type to send  Enter: log status  Ctrl-D/Esc: finish  Ctrl-C ×2: abort  ?: legend\n")
	for _, text := range []string{ansi.Strip(footer), usage, docText} {
		assert.NotContains(t, text, "quit", "Esc finishes as Ctrl-D does")
	}
}

// words returns the words of a part of a status line: what is left of it
// without its figures.
func words(part string) string {
	var kept []string
	for _, f := range strings.Fields(part) {
		if strings.ContainsFunc(f, unicode.IsLetter) {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

func TestTheLegendSaysWhatEveryWordOnTheScreenMeans(t *testing.T) {
	m, q, _ := testModel()
	m, _ = press(t, m, tea.WindowSizeMsg{Width: 80, Height: 24}, chainStatus(), runes("ab"), keyOf(tea.KeyEnter))
	assert.NotContains(t, screen(m), "\nlegend  ?")
	m, _ = press(t, m, runes("?"))
	s := screen(m)
	assert.Equal(t, "ab", string(q.keys), "? is not a key")
	assert.Contains(t, s, "legend  ? or Esc hides it")
	assert.NotContains(t, s, "keys through the rate agent", "the legend takes the panes' place")

	terms := map[string]bool{}
	for _, e := range legend(m.cfg) {
		terms[e.term] = true
		assert.Regexp(t, `(?m)^`+regexp.QuoteMeta(fmt.Sprintf("%-11s%s", e.term, e.means))+`$`, s, "at 80x24 every line of the legend is whole")
	}
	for _, st := range chainStatus().Agents {
		for _, part := range describe(st) {
			w := words(part)
			if w == "demand unbounded" {
				w = "unbounded"
			}
			if !terms[w] {
				assert.Contains(t, s, w+":", "the legend says what %q means", part)
			}
		}
	}
	for _, w := range []string{"failed:", "unbounded:", "through the rate agent:", "in the file:", "to enter the chain:", "INF: info", "batch"} {
		assert.Contains(t, s, w)
	}
	for _, w := range []string{"typed", "waiting", "elapsed", "log", "on top"} {
		assert.True(t, terms[w], "the legend explains %q", w)
	}
	for i, line := range strings.Split(s, "\n") {
		assert.LessOrEqual(t, ansi.StringWidth(line), 80, "line %d: %q", i, line)
	}
	assert.Equal(t, 24, strings.Count(s, "\n")+1, "the screen keeps its height")

	m, _ = press(t, m, runes("?"))
	assert.Contains(t, screen(m), "keys through the rate agent", "? again hides it")
	m, _ = press(t, m, runes("x?y"), keyOf(tea.KeyEsc))
	assert.Equal(t, typing, m.phase, "Esc hides the legend, and only that")
	assert.NotContains(t, screen(m), "legend  ?")
	m, _ = press(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("why?"), Paste: true})
	assert.Equal(t, "abxywhy?", string(q.keys), "a ? typed shows the legend; in a paste it is a key")
	assert.False(t, m.legend)
	m, _ = press(t, m, keyOf(tea.KeyEsc), runes("?"))
	assert.Equal(t, draining, m.phase, "with the legend hidden, Esc finishes")
	assert.True(t, m.legend, "the legend shows while the chain finishes")
}

func TestTheAdaptiveAgentsLegendSaysItsLimitIsLearnt(t *testing.T) {
	cfg := defaults()
	assert.NotContains(t, fmt.Sprint(legend(cfg)), "learnt")
	cfg.parallel = parallelism{auto: true}
	text := fmt.Sprint(legend(cfg))
	assert.Contains(t, text, "learnt between the bounds")
	assert.Contains(t, text, "adaptive: the keys it has done a second")
}

func TestDescribeReadsTheLoadOfAnyStage(t *testing.T) {
	l := agent.Load{Queued: 12, InFlight: 3, Done: 1234, Failed: 2, Demand: agent.Unbounded}
	assert.Equal(t, []string{" 12 queued", " 3 in flight", "1234 done", "2 failed", "demand unbounded"},
		describe(stage("custom", l, struct{ agent.Load }{l})), "a stage of a kind the typewriter does not know")
	assert.Equal(t, []string{"  0 queued", " 0 in flight", "0 done", "demand 0"}, describe(stage("rate", agent.Load{}, nil)),
		"none failed: it goes unsaid")
}

func TestALineKeepsWholePartsThatFit(t *testing.T) {
	parts := []string{"  3 queued", " 2 in flight", "limit 5 of 1–64, kept: nothing waits for it", "40 done"}
	assert.Equal(t, "adaptive    3 queued   2 in flight  limit 5 of 1–64, kept: nothing waits for it  40 done",
		fit("adaptive ", parts, "  ", 100))
	assert.Equal(t, "adaptive    3 queued   2 in flight  limit 5 of 1–64, kept: nothing waits for it",
		fit("adaptive ", parts, "  ", 80), "the last part goes whole, the rest stays")
	assert.Equal(t, "adaptive    3 qu…", fit("adaptive ", parts, "  ", 17), "a first part too wide is cut")
}

func TestTheAdaptiveAgentSaysWhatItDoes(t *testing.T) {
	st := func(queued, inFlight, limit int, phase string) adaptive.Status {
		return adaptive.Status{Status: parallel.Status{Load: agent.Load{Queued: queued, InFlight: inFlight}, Limit: limit},
			Min: 1, Max: 64, View: adaptive.View{Phase: phase}}
	}
	assert.Equal(t, "limit 4 of 1–64, rising while keys wait", doing(st(3, 4, 4, "start")), "saturated: the controller moves")
	assert.Equal(t, "limit 4 of 1–64, holding the best found", doing(st(3, 4, 4, "hold")))
	assert.Equal(t, "limit 4 of 1–64, kept: nothing waits for it", doing(st(0, 2, 4, "start")),
		"not saturated: something before it is the bottleneck")
	assert.Equal(t, "limit 4 of 1–64, kept: nothing waits for it", doing(st(3, 2, 4, "search")), "below its limit")
}

func TestDemandIsUnboundedAsLogsSayIt(t *testing.T) {
	for _, tc := range []struct {
		demand agent.Credit
		want   string
	}{
		{0, "0"},
		{64, "64"},
		{agent.Unbounded/2 - 1, strconv.Itoa(agent.Unbounded/2 - 1)},
		{agent.Unbounded / 2, "unbounded"},
		{agent.Unbounded - 67, "unbounded"}, // a sink's demand after 67 values
		{agent.Unbounded, "unbounded"},
	} {
		assert.Equal(t, tc.want, tc.demand.String(), "%d", int(tc.demand))
		assert.Contains(t, fmt.Sprintf("%+v", agent.Load{Demand: tc.demand}), "Demand:"+tc.want, "%%+v says %d the same way", int(tc.demand))
		assert.Equal(t, tc.want, loggedDemand(t, agent.Load{Demand: tc.demand}), "logs say %d the same way", int(tc.demand))
	}
}

// loggedDemand returns the demand a status log writes of l, as text.
func loggedDemand(t *testing.T, l agent.Load) string {
	t.Helper()
	var b bytes.Buffer
	log := zerolog.New(&b)
	log.Log().Object("load", fields.Object(l)).Send()
	var ev struct {
		Load struct {
			Demand json.RawMessage `json:"demand"`
		} `json:"load"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &ev), b.String())
	return strings.Trim(string(ev.Load.Demand), `"`)
}

func TestModelShowsTheAdaptiveAgentsLimit(t *testing.T) {
	m, _, _ := testModel()
	m.cfg.parallel = parallelism{auto: true}
	assert.Contains(t, screen(m), "adaptive  …")
	al := agent.Load{Queued: 9, InFlight: 5, Done: 40, Demand: 12}
	m, _ = press(t, m, statusMsg(compose.Status{Agents: []compose.AgentStatus{
		stage("rate", agent.Load{}, rate.Status{}),
		stage("adaptive", al, adaptive.Status{
			Status: parallel.Status{Load: al, Limit: 5},
			Min:    1, Max: 64, View: adaptive.View{Phase: "search", Throughput: 4.25},
		}),
	}}))
	m, _ = press(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
	assert.Contains(t, screen(m), "adaptive    9 queued   5 in flight  limit 5 of 1–64, comparing limits near it  4.2 keys/s  0 held  40 done  demand 12\n")
}

func TestModelCtrlDDrainsThenQuits(t *testing.T) {
	for _, tc := range []struct {
		key tea.KeyType
		by  string
	}{{tea.KeyCtrlD, "Ctrl-D"}, {tea.KeyEsc, "Esc"}} {
		t.Run(tc.by, func(t *testing.T) {
			m, q, logs := testModel()
			m, cmd := press(t, m, runes("abc"), keyOf(tc.key))
			assert.Nil(t, cmd, "the model waits for the chain to drain")
			assert.True(t, q.ended)
			assert.Contains(t, screen(m), tc.by+": finishing... 3 keys to go")

			m, cmd = press(t, m, runes("more"), keyOf(tea.KeyEnter), keyOf(tea.KeyCtrlD))
			assert.Nil(t, cmd)
			assert.Equal(t, "abc", string(q.keys), "no key is taken while draining")
			assert.Empty(t, logs.tail(10), "nothing is logged while draining")

			m, cmd = press(t, m, writtenMsg("abc"), drainedMsg{})
			assert.True(t, quits(cmd))
			assert.Equal(t, finished, m.phase)
			assert.Contains(t, screen(m), "done: every key is in typewriter.txt")
		})
	}
}

func TestModelCtrlCTwiceAborts(t *testing.T) {
	m, _, _ := testModel()
	m, cmd := press(t, m, runes("ab"), keyOf(tea.KeyCtrlC))
	assert.Nil(t, cmd)
	assert.Contains(t, screen(m), "press Ctrl-C again to abort")

	m, cmd = press(t, m, runes("c"))
	assert.Nil(t, cmd)
	assert.NotContains(t, screen(m), "press Ctrl-C again", "another key disarms it")

	m, _ = press(t, m, keyOf(tea.KeyCtrlC))
	m, cmd = press(t, m, keyOf(tea.KeyCtrlC))
	assert.True(t, quits(cmd))
	assert.Equal(t, aborted, m.phase)
}

func TestModelCtrlCTwiceAbortsADrain(t *testing.T) {
	m, _, _ := testModel()
	m, cmd := press(t, m, runes("ab"), keyOf(tea.KeyCtrlD), keyOf(tea.KeyCtrlC), keyOf(tea.KeyCtrlC))
	assert.True(t, quits(cmd))
	assert.Equal(t, aborted, m.phase)
}

func TestModelQuitsOnAFailure(t *testing.T) {
	m, _, _ := testModel()
	m, cmd := press(t, m, failedMsg{errors.New("poll broke")})
	assert.True(t, quits(cmd))
	assert.Contains(t, screen(m), "failed: poll broke")
}

func TestModelViewFitsAnySize(t *testing.T) {
	m, _, _ := testModel()
	var msgs []tea.Msg
	for i := range 300 {
		k := []rune("日本😀ab ")[i%6]
		msgs = append(msgs, runes(string(k)), passedMsg(k))
		if i%7 == 6 {
			msgs = append(msgs, writtenMsg(strings.Repeat("語", 7)))
		}
	}
	m, _ = press(t, m, msgs...)
	for _, size := range [][3]int{{0, 0, 0}, {20, 5, 0}, {80, 24, 0}, {200, 60, 0}, {0, 0, 1}, {20, 5, 1}, {80, 24, 1}, {200, 60, 1}} {
		m, _ = press(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m.legend = size[2] == 1
		view := screen(m)
		if size[0] >= 40 {
			for i, line := range strings.Split(view, "\n") {
				assert.LessOrEqual(t, ansi.StringWidth(line), size[0], "%v line %d: %q", size, i, line)
			}
		}
		if size[1] >= 24 {
			assert.LessOrEqual(t, strings.Count(view, "\n")+1, size[1], "%v", size)
		}
	}
}

func TestOutcome(t *testing.T) {
	done := model{phase: finished, inFile: 11, lines: []string{"hello", " worl", "d"}}
	for _, tc := range []struct {
		name   string
		final  tea.Model
		err    error
		code   int
		stdout string
		stderr string
	}{
		{"done", done, nil, 0, "typewriter: 11 keys in 3 lines in out.txt\n", ""},
		{"aborted", model{phase: aborted, typed: 5, inFile: 2}, nil, 130, "", "aborted: 5 keys typed, 2 in out.txt"},
		{"interrupted", model{typed: 1}, fmt.Errorf("killed: %w", tea.ErrInterrupted), 130, "", "aborted"},
		{"chain failed", model{phase: finished, err: errors.New("flush broke")}, nil, 1, "", "flush broke"},
		{"display failed", model{}, tea.ErrProgramPanic, 1, "", "panic"},
		{"stopped", model{typed: 3, inFile: 1}, nil, 1, "", "stopped: 3 keys typed, 1 in out.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tc.code, outcome(tc.final, tc.err, "out.txt", &stdout, &stderr))
			assert.Equal(t, tc.stdout, stdout.String())
			assert.Contains(t, stderr.String(), tc.stderr)
		})
	}
}

func TestSummaryCountsInWords(t *testing.T) {
	var b strings.Builder
	summary(&b, 1, 1, "a.txt")
	summary(&b, 2, 0, "b.txt")
	assert.Equal(t, "typewriter: 1 key in 1 line in a.txt\ntypewriter: 2 keys in 0 lines in b.txt\n", b.String())
}

func TestTheLogPaneShowsAStatusBriefly(t *testing.T) {
	pane := newLogPane(4)
	log := pane.logger()
	st := parallel.Status{Load: agent.Load{Queued: 3, InFlight: 1, Done: 5, Demand: agent.Unbounded}, Limit: 2}
	log.Info().Str("agent", "parallel").Object("status", fields.Object(st)).Msg("status")
	lines := pane.tail(1)
	require.Len(t, lines, 1)
	assert.Contains(t, lines[0], "INF status parallel 3 queued · 1 in flight · limit 2 · 5 done")
	assert.NotContains(t, lines[0], "{", "no JSON")
}

func TestTheScreenSaysWhereTheMetricsAre(t *testing.T) {
	m, _, _ := testModel()
	assert.NotContains(t, screen(m), "metrics at")
	m.cfg.metricsURL = "http://127.0.0.1:9464/metrics"
	assert.Contains(t, screen(m), "\nmetrics at http://127.0.0.1:9464/metrics\n")
}
