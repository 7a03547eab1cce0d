package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// The display's styles.
var (
	titleStyle = lipgloss.NewStyle().Bold(true)
	paneStyle  = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1)
	dimStyle   = lipgloss.NewStyle().Faint(true)
	noteStyle  = lipgloss.NewStyle().Bold(true).Reverse(true)
)

// logRows is the number of log lines shown.
const logRows = 4

// footer names the keys, in the words of keyUses.
var footer = footerText()

// footerText joins the keys' footer names, the key of each in bold.
func footerText() string {
	parts := make([]string, len(keyUses))
	for i, k := range keyUses {
		parts[i] = k.footer
		if key, does, ok := strings.Cut(k.footer, ": "); ok {
			parts[i] = titleStyle.Render(key) + ": " + does
		}
	}
	return strings.Join(parts, "  ")
}

// View draws the header, the two panes, a status line per agent, the log,
// the footer, and under it the message of the moment and the time elapsed.
// With the legend shown, the status lines come first, and the legend takes
// the place of the panes and the log.
func (m model) View() string {
	w := max(m.width, 40)
	var b strings.Builder
	b.WriteString(cut(titleStyle.Render("typewriter")+dimStyle.Render(m.settings()), w) + "\n")
	if m.cfg.metricsURL != "" {
		b.WriteString(dimStyle.Render(cut("metrics at "+m.cfg.metricsURL, w)) + "\n")
	}
	rows := m.paneRows()
	if m.legend {
		b.WriteString(m.statusLines(w))
		b.WriteString(m.legendBlock(w, rows+3+1+logRows))
	} else {
		b.WriteString(m.panes(w, rows) + "\n")
		b.WriteString(m.statusLines(w))
		b.WriteString(m.logBlock(w))
	}
	b.WriteString(cut(footer, w) + "\n")
	b.WriteString(m.bottom(w - 1))
	return b.String()
}

// statusLines are a line per agent and the counts line.
func (m model) statusLines(w int) string {
	var b strings.Builder
	for _, line := range m.agentLines() {
		b.WriteString(cut(line, w) + "\n")
	}
	b.WriteString(m.counts(w) + "\n")
	return b.String()
}

// logBlock is the log's title and its last logRows lines.
func (m model) logBlock(w int) string {
	var b strings.Builder
	b.WriteString(dimStyle.Render("log") + "\n")
	logs := m.logs.tail(logRows)
	for i := range logRows {
		line := ""
		if i < len(logs) {
			line = logs[i]
		}
		b.WriteString(dimStyle.Render(cut(line, w)) + "\n")
	}
	return b.String()
}

// legendBlock is the legend in n lines of w columns: its title and a line
// per word or figure the screen shows, the title left out first when they
// do not all fit, and then the last lines.
func (m model) legendBlock(w, n int) string {
	lines := []string{titleStyle.Render("legend") + dimStyle.Render("  ? or Esc hides it · figures count keys unless they say otherwise")}
	for _, e := range legend(m.cfg) {
		lines = append(lines, titleStyle.Render(fmt.Sprintf("%-11s", e.term))+e.means)
	}
	if len(lines) > n {
		lines = lines[1:]
	}
	var b strings.Builder
	for i := range n {
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString(cut(line, w) + "\n")
	}
	return b.String()
}

// bottom is the line under the footer, in w columns: the message of the
// moment, if any, on the left, and the time elapsed on the right. A message
// too long for both is shown alone.
func (m model) bottom(w int) string {
	elapsed := "elapsed " + clock(m.now.Sub(m.start))
	note := m.footnote()
	if note == "" {
		return strings.Repeat(" ", max(w-ansi.StringWidth(elapsed), 0)) + dimStyle.Render(cut(elapsed, w))
	}
	gap := w - ansi.StringWidth(note) - ansi.StringWidth(elapsed)
	if gap < 2 {
		return noteStyle.Render(cut(note, w))
	}
	return noteStyle.Render(note) + strings.Repeat(" ", gap) + dimStyle.Render(elapsed)
}

// clock writes d as minutes and seconds, 1:05, or past an hour as hours,
// minutes and seconds, 1:02:05.
func clock(d time.Duration) string {
	s := int(max(d, 0) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// settings is the header's account of the flags.
func (m model) settings() string {
	return fmt.Sprintf("  rate %g/s · parallel %s · buffer %d · work %v · flush %v",
		m.cfg.rate, m.cfg.parallel.String(), m.cfg.buffer, m.cfg.workDelay, m.cfg.flushDelay)
}

// chrome counts the rows View draws around the panes' contents: the header,
// the panes' titles and borders, three agents, the counts, the log's title
// and rows, the footer and the line under it.
const chrome = 1 + 3 + 3 + 1 + 1 + logRows + 1 + 1

// paneRows is how many rows of keys and lines the panes show: what the
// height leaves, at least 3.
func (m model) paneRows() int {
	rows := max(m.height-chrome, 3)
	if m.cfg.metricsURL != "" {
		rows = max(rows-1, 3) // the line that says where the metrics are
	}
	return rows
}

// panes draws the keys through the rate agent on the left and the lines in
// the file on the right, side by side in w columns, rows of each.
func (m model) panes(w, rows int) string {
	outer := w / 2
	inner := max(outer-4, 8) // border and padding
	left := tailRows(ansi.Hardwrap(string(m.passed), inner, true), rows)
	right := make([]string, 0, rows)
	for _, l := range m.lines[max(len(m.lines)-rows, 0):] {
		right = append(right, cut(l, inner))
	}
	box := paneStyle.Width(inner + 2).Height(rows + 1)
	return lipgloss.JoinHorizontal(lipgloss.Top,
		box.Render(titleStyle.Render("keys through the rate agent")+"\n"+strings.Join(left, "\n")),
		box.Render(titleStyle.Render("lines in "+cut(m.cfg.path, inner-9))+"\n"+strings.Join(right, "\n")))
}

// agentLines returns one line per stage of the chain, from its last status.
func (m model) agentLines() []string {
	work := "parallel"
	if m.cfg.parallel.auto {
		work = "adaptive"
	}
	lines := make([]string, 3)
	for i, name := range []string{"rate", work, "buffer"} {
		lines[i] = fmt.Sprintf("%-9s …", name)
	}
	for i, st := range m.status.Agents {
		if i < len(lines) {
			lines[i] = fit(fmt.Sprintf("%-9s", st.Name), describe(st), "  ", max(m.width, 40))
		}
	}
	return lines
}

// counts follows the keys from the keyboard to the file, in w columns.
func (m model) counts(w int) string {
	return fit(fmt.Sprintf("%-9s", "keys"), []string{fmt.Sprintf("%d typed", m.typed), fmt.Sprintf("%d in the file", m.inFile),
		fmt.Sprintf("%d through the rate agent", m.through), fmt.Sprintf("%d waiting to enter the chain", m.keys.waiting())}, " · ", w)
}

// footnote is the message under the footer: what is going on, if anything.
func (m model) footnote() string {
	switch {
	case m.armed:
		return "press Ctrl-C again to abort"
	case m.phase == draining:
		return fmt.Sprintf("%s: finishing... %d keys to go", m.ending, m.typed-m.inFile)
	case m.phase == finished && m.err != nil:
		return "failed: " + m.err.Error()
	case m.phase == finished:
		return "done: every key is in " + m.cfg.path
	case m.phase == aborted:
		return "aborted"
	}
	return m.note
}

// tailRows returns the last n lines of text.
func tailRows(text string, n int) []string {
	rows := strings.Split(text, "\n")
	return rows[max(len(rows)-n, 0):]
}

// cut truncates s to w columns.
func cut(s string, w int) string {
	return ansi.Truncate(s, max(w, 1), "…")
}
