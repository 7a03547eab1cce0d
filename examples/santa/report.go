package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"
)

// quantile returns the q-quantile of ts by the nearest-rank method, 0 for
// none. It sorts ts.
func quantile(ts []time.Duration, q float64) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	slices.Sort(ts)
	i := int(q*float64(len(ts))+0.999999999) - 1
	return ts[min(max(i, 0), len(ts)-1)]
}

// meanRunning returns the mean of the jobs running from offset from to
// offset to, from the samples: each sample holds until the next one, so a
// sample that came late weighs no more than one on time. It returns 0 if
// no sample covers that span.
func meanRunning(ss []sample, from, to time.Duration) float64 {
	var sum float64
	var span time.Duration
	for i, s := range ss {
		next := to
		if i+1 < len(ss) {
			next = min(ss[i+1].at, to)
		}
		if start := max(s.at, from); next > start {
			sum += float64(s.running) * float64(next-start)
			span += next - start
		}
	}
	if span == 0 {
		return 0
	}
	return sum / float64(span)
}

// finalLimit returns the limit in force when the arrivals ended: that of the
// last sample taken by then.
func finalLimit(ss []sample, end time.Duration) int {
	l := 0
	for _, s := range ss {
		if s.at <= end {
			l = s.limit
		}
	}
	return l
}

// line is one strategy's line of the summary.
type line struct {
	name          string
	done, arrived int
	p50, p99      time.Duration
	peak          int
	mean, final   float64
	limit         int // 0 for none
	end           time.Duration
}

// summarize returns o's line. Mean parallelism is the time the jobs ran,
// added up, over the length of the run; final parallelism the mean of the
// samples over the last tenth of the arrivals; the limit is the one in
// force when they ended.
func summarize(o outcome) line {
	d := o.duration
	var mean float64
	if o.end > 0 {
		mean = float64(o.busy) / float64(o.end)
	}
	return line{
		name: o.s.name, done: o.done, arrived: o.arrived,
		p50: quantile(o.times, 0.5), p99: quantile(o.times, 0.99),
		peak: o.peak, mean: mean, final: meanRunning(o.samples, d-d/10, d),
		limit: finalLimit(o.samples, d), end: o.end,
	}
}

// header is the summary's first line; each strategy's line follows it, in
// the same columns.
const header = "strategy\tjobs done\tp50\tp99\tlargest queue\tmean parallelism\tfinal parallelism\tlimit\tended\t"

// printSummary writes the summary of the outcomes to w, one line per
// strategy, in aligned columns.
func printSummary(w io.Writer, outs []outcome) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, header)
	for _, o := range outs {
		l := summarize(o)
		limit := "none"
		if l.limit > 0 {
			limit = strconv.Itoa(l.limit)
		}
		fmt.Fprintf(tw, "%s\t%d of %d\t%v\t%v\t%d\t%.1f\t%.1f\t%s\t%v\t\n", l.name, l.done, l.arrived,
			round(l.p50), round(l.p99), l.peak, l.mean, l.final, limit, round(l.end))
	}
	return tw.Flush()
}

// round rounds d to two to four significant figures: tenths of a
// millisecond below 100 ms, milliseconds below ten seconds, tenths of a
// second above.
func round(d time.Duration) time.Duration {
	switch {
	case d < 100*time.Millisecond:
		return d.Round(100 * time.Microsecond)
	case d < 10*time.Second:
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}
