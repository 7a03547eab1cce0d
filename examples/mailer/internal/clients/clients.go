// Package clients is the mailer's campaigns of several clients: which
// email is whose, and each client's share of the emails sent, second by
// second, against the share its weight gives it among the clients with
// emails left.
package clients

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client is one client's campaign: its name, how many emails it sends,
// and its weight.
type Client struct {
	Name   string
	Emails int
	Weight int
}

// Parse reads "NAME:EMAILS[:WEIGHT],..." (a weight of 1 by default): at
// most max emails in all, and each name once.
func Parse(spec string, max int) ([]Client, error) {
	var cs []Client
	total := 0
	for part := range strings.SplitSeq(spec, ",") {
		fields := strings.Split(strings.TrimSpace(part), ":")
		if len(fields) < 2 || len(fields) > 3 || fields[0] == "" {
			return nil, fmt.Errorf("%q is not NAME:EMAILS or NAME:EMAILS:WEIGHT", part)
		}
		c := Client{Name: fields[0], Weight: 1}
		var err error
		if c.Emails, err = strconv.Atoi(fields[1]); err != nil || c.Emails < 1 {
			return nil, fmt.Errorf("%s's emails must be a whole number of at least 1, got %q", c.Name, fields[1])
		}
		if len(fields) == 3 {
			if c.Weight, err = strconv.Atoi(fields[2]); err != nil || c.Weight < 1 || c.Weight > 1000 {
				return nil, fmt.Errorf("%s's weight must be a whole number from 1 to 1000, got %q", c.Name, fields[2])
			}
		}
		if slices.ContainsFunc(cs, func(o Client) bool { return o.Name == c.Name }) {
			return nil, fmt.Errorf("client %s is named twice", c.Name)
		}
		if total += c.Emails; total > max {
			return nil, fmt.Errorf("the clients send %d emails or more, over %d", total, max)
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, errors.New("no client")
	}
	return cs, nil
}

// Plan numbers the clients' emails from 1, client by client in the order
// given: the first client's emails first.
type Plan struct {
	clients []Client
	ends    []int // the number of the last email of each client
}

// NewPlan returns the plan of cs, which Parse returned.
func NewPlan(cs []Client) *Plan {
	p := &Plan{clients: cs}
	end := 0
	for _, c := range cs {
		end += c.Emails
		p.ends = append(p.ends, end)
	}
	return p
}

// Ranges returns the numbers of each client's first and last emails, in
// the order the clients were given.
func (p *Plan) Ranges() [][2]int {
	out := make([][2]int, len(p.ends))
	first := 1
	for i, end := range p.ends {
		out[i] = [2]int{first, end}
		first = end + 1
	}
	return out
}

// Total counts the emails of every client.
func (p *Plan) Total() int { return p.ends[len(p.ends)-1] }

// Of returns the name of the client of email i, from 1.
func (p *Plan) Of(i int) string {
	k, _ := slices.BinarySearch(p.ends, i)
	return p.clients[min(k, len(p.clients)-1)].Name
}

// String lists the clients: their names, emails and weights other than 1.
func (p *Plan) String() string {
	var parts []string
	for _, c := range p.clients {
		part := fmt.Sprintf("%s %d", c.Name, c.Emails)
		if c.Weight != 1 {
			part += fmt.Sprintf(" (weight %d)", c.Weight)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

// Weights returns each client's weight, by name.
func (p *Plan) Weights() map[string]int {
	w := make(map[string]int, len(p.clients))
	for _, c := range p.clients {
		w[c.Name] = c.Weight
	}
	return w
}

// Shares counts each client's emails sent as they are, and says what
// share of those sent each client had. It is safe for concurrent use.
type Shares struct {
	plan  *Plan
	start time.Time

	mu   sync.Mutex
	done map[string]int           // sent, by client
	seen map[string]int           // sent, by client, at the last line
	end  map[string]time.Duration // when each client's last email was sent
}

// NewShares returns the Shares of plan, whose emails start at start.
func NewShares(plan *Plan, start time.Time) *Shares {
	return &Shares{plan: plan, start: start, done: map[string]int{}, seen: map[string]int{}, end: map[string]time.Duration{}}
}

// Sent counts an email of client as sent at instant at.
func (s *Shares) Sent(client string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done[client]++
	for _, c := range s.plan.clients {
		if c.Name == client && s.done[client] == c.Emails {
			s.end[client] = at.Sub(s.start)
		}
	}
}

// Line returns what share of the emails sent since the last Line each
// client had, beside its fair share: its weight's share among the clients
// that had emails left as the span began (a client whose last email went
// in the span says so: it had less than its share to send). It returns ""
// when none was sent since.
func (s *Shares) Line() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	sent, weights := 0, 0
	for _, c := range s.plan.clients {
		sent += s.done[c.Name] - s.seen[c.Name]
		if s.seen[c.Name] < c.Emails {
			weights += c.Weight
		}
	}
	if sent == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range s.plan.clients {
		n := s.done[c.Name] - s.seen[c.Name]
		fair := 0.0
		if s.seen[c.Name] < c.Emails {
			fair = float64(c.Weight) / float64(weights)
		}
		s.seen[c.Name] = s.done[c.Name]
		if fair == 0 && n == 0 {
			continue
		}
		done := ""
		if s.done[c.Name] == c.Emails {
			done = ", done" // its last email went in the span: it had none left after
		}
		fmt.Fprintf(&b, " %s %.0f%% (fair %.0f%%%s)", c.Name, 100*float64(n)/float64(sent), 100*fair, done)
	}
	return "shares of the emails sent:" + b.String()
}

// Summary returns a line for each client: its emails and weight, when its
// last email was sent, and when it would have been, sent first come,
// first served at the campaign's rate: once the emails of the clients
// before it, and its own, had all been sent.
func (s *Shares) Summary(elapsed time.Duration) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, c := range s.plan.clients {
		fifo := time.Duration(float64(elapsed) * float64(s.plan.ends[i]) / float64(s.plan.Total()))
		end, ok := s.end[c.Name]
		when := "not done"
		if ok {
			when = "done after " + end.Round(10*time.Millisecond).String()
		}
		out = append(out, fmt.Sprintf("client %s: %d emails, weight %d, %s (first come, first served: about %v)",
			c.Name, c.Emails, c.Weight, when, fifo.Round(10*time.Millisecond)))
	}
	return out
}
