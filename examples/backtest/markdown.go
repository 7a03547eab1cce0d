package main

import (
	"fmt"
	"io"
	"strings"
)

// markdown prints the reports as markdown tables, a row per controller (the
// best fixed limit first) and a column per scenario: efficiency, the end to
// end p99, the service time p99 and converge.
func markdown(reports []report, w io.Writer) {
	rows := [][]line{}
	for _, r := range reports {
		for i, l := range r.lines() {
			if i == len(rows) {
				rows = append(rows, nil)
			}
			rows[i] = append(rows[i], l)
		}
	}
	tables := []struct {
		title string
		cell  func(line) string
	}{
		{"efficiency (% of the best fixed limit's goodput)", func(l line) string { return fmt.Sprintf("%.1f", l.efficiency) }},
		{"p99 end to end (arrival, or entry into the queue under a flood, to result)", func(l line) string { return round(l.e2e).String() }},
		{"p99 service time", func(l line) string { return round(l.p99).String() }},
		{"converge (completions)", func(l line) string { return fmt.Sprint(l.converge) }},
	}
	for _, t := range tables {
		fmt.Fprintf(w, "\n%s:\n\n| controller |", t.title)
		for _, r := range reports {
			fmt.Fprintf(w, " %s |", r.sc.name)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(reports)))
		for i, row := range rows {
			name := row[0].controller
			if i == 0 {
				name = "best fixed limit"
			}
			fmt.Fprintf(w, "| %s |", name)
			for _, l := range row {
				c := t.cell(l)
				if i == 0 && t.title[0] != 'e' {
					c += " (" + strings.TrimPrefix(l.controller, "fixed-") + ")"
				}
				fmt.Fprintf(w, " %s |", c)
			}
			fmt.Fprintln(w)
		}
	}
}
