package main

import (
	"fmt"
	"strings"

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

// footer names the keys.
const footer = "type to send · Enter: log status · Ctrl-D: finish · Esc: quit · Ctrl-C ×2: abort"

// View draws the header, the two panes, a status line per agent, the log
// and the footer.
func (m model) View() string {
	w := max(m.width, 40)
	var b strings.Builder
	b.WriteString(cut(titleStyle.Render("typewriter")+dimStyle.Render(m.settings()), w) + "\n")
	if m.cfg.metricsURL != "" {
		b.WriteString(dimStyle.Render(cut("metrics at "+m.cfg.metricsURL, w)) + "\n")
	}
	b.WriteString(m.panes(w) + "\n")
	for _, line := range m.agentLines() {
		b.WriteString(cut(line, w) + "\n")
	}
	b.WriteString(m.counts(w) + "\n")
	b.WriteString(dimStyle.Render("log") + "\n")
	logs := m.logs.tail(logRows)
	for i := range logRows {
		line := ""
		if i < len(logs) {
			line = logs[i]
		}
		b.WriteString(dimStyle.Render(cut(line, w)) + "\n")
	}
	b.WriteString(cut(footer, w) + "\n")
	if note := m.footnote(); note != "" {
		b.WriteString(noteStyle.Render(cut(note, w-1)))
	}
	return b.String()
}

// settings is the header's account of the flags.
func (m model) settings() string {
	return fmt.Sprintf("  rate %g/s · parallel %s · buffer %d · work %v · flush %v",
		m.cfg.rate, m.cfg.parallel.String(), m.cfg.buffer, m.cfg.workDelay, m.cfg.flushDelay)
}

// chrome counts the rows View draws around the panes' contents: the header,
// the panes' titles and borders, three agents, the counts, the log's title
// and rows, the footer and the note.
const chrome = 1 + 3 + 3 + 1 + 1 + logRows + 1 + 1

// panes draws the keys through the rate agent on the left and the lines in
// the file on the right, side by side in w columns.
func (m model) panes(w int) string {
	rows := max(m.height-chrome, 3)
	if m.cfg.metricsURL != "" {
		rows = max(rows-1, 3) // the line that says where the metrics are
	}
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

// footnote is the line under the footer: what is going on, if anything.
func (m model) footnote() string {
	switch {
	case m.armed:
		return m.note
	case m.phase == draining:
		return fmt.Sprintf("%s: draining... %d keys to go", m.ending, m.typed-m.inFile)
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
