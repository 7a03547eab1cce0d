package livepage

import "slices"

// Live returns what the page saw at its last sample.
func (p *Page) Live() Live {
	p.mu.Lock()
	defer p.mu.Unlock()
	doc := Live{Time: p.last, Window: Window.Seconds(), Period: Period.Seconds(), Chains: []Chain{}}
	var old, cur reading
	if n := len(p.readings); n > 0 {
		old, cur = p.readings[0], p.readings[n-1]
	}
	for _, w := range p.chains {
		c := Chain{Name: w.name, Done: w.over, Error: w.err, Stages: make([]Stage, len(w.parts))}
		for i, pt := range w.parts {
			c.Stages[i] = stageOf(pt, w.stamps[i], old, cur)
			histories(c.Stages[i].Workers, w.stamps[i])
			if s := c.Stages[i].Shares; c.Bottleneck == "" && s.Busy >= 0.5 && s.Busy > s.Held {
				c.Bottleneck = pt.name
			}
		}
		doc.Chains = append(doc.Chains, c)
	}
	return doc
}

// sharesOf returns the mean of the stamps' shares.
func sharesOf(stamps []stamp) Shares {
	var s Shares
	for _, st := range stamps {
		s.Busy += st.shares.Busy
		s.Held += st.shares.Held
		s.Idle += st.shares.Idle
	}
	if n := float64(len(stamps)); n > 0 {
		s = Shares{Busy: s.Busy / n, Held: s.Held / n, Idle: s.Idle / n}
	}
	return s
}

// stageOf returns what the page shows of pt, given its shares over the
// window and the oldest and newest readings of the metrics in it.
func stageOf(pt part, stamps []stamp, old, cur reading) Stage {
	d := pt.detail
	s := Stage{
		Name: pt.name, Kind: pt.kind, Shares: sharesOf(stamps),
		Queued: pt.load.Queued, InFlight: pt.load.InFlight, Done: pt.load.Done, Failed: pt.load.Failed,
		Results: d.Held, Tokens: d.Tokens, Rate: d.Rate, Shared: d.Shared,
	}
	if !pt.load.Demand.IsUnbounded() {
		s.Demand = ptr(int(pt.load.Demand))
	}
	dt := cur.at.Sub(old.at)
	s.In = measured(perSecond(old.in, cur.in, pt.name, dt))
	s.Out = measured(perSecond(old.out, cur.out, pt.name, dt))
	s.WaitP50 = measured(quantile(0.5, old.waits[pt.name], cur.waits[pt.name]))
	s.WaitP99 = measured(quantile(0.99, old.waits[pt.name], cur.waits[pt.name]))
	if d.Burst > 0 {
		s.Burst = ptr(d.Burst)
	}
	if n := pt.limit(); n > 0 || d.Workers != nil || d.Want != nil {
		s.Limit = ptr(n)
	}
	if d.Workers != nil || d.Want != nil {
		remoteStage(&s, d)
	}
	s.Keys = keysOf(d)
	return s
}

// histories fills in the History of each of ws from the stamps of its
// stage over the window.
func histories(ws []Worker, stamps []stamp) {
	for i := range ws {
		w := &ws[i]
		w.History = []Moment{}
		seen, failed, moved := false, 0, 0
		for _, st := range stamps {
			k := slices.IndexFunc(st.workers, func(x workerStamp) bool { return x.id == w.ID })
			if k < 0 {
				continue
			}
			x := st.workers[k]
			m := Moment{Hung: x.hung}
			if x.slots > 0 {
				m.Busy = min(float64(x.inFlight+x.hung)/float64(x.slots), 1)
			}
			if seen {
				m.Failed, m.Moved = max(x.fail-failed, 0), max(x.moved-moved, 0)
			}
			seen, failed, moved = true, x.fail, x.moved
			w.History = append(w.History, m)
		}
	}
}

// remoteStage fills in s's workers and tags from d.
func remoteStage(s *Stage, d detail) {
	for _, w := range d.Workers {
		s.Workers = append(s.Workers, Worker{ID: w.ID, Addr: w.Addr, Tags: w.Tags, Slots: w.Slots, Free: w.Free,
			InFlight: w.InFlight, Done: w.Done, Failed: w.Failed, Moved: w.Moved, Hung: w.Hung})
	}
	retrying := counts(d.Retrying)
	for _, tag := range sortedKeys(d.Want, d.Tags, d.Leased, retrying) {
		s.Tags = append(s.Tags, Tag{Tag: tag, Want: d.Want[tag], Queued: d.Tags[tag], Leased: d.Leased[tag], Retrying: retrying[tag]})
	}
}

// keysOf returns a keyed stage's keys, each with its share of the items
// started and its weighted share among them.
func keysOf(d detail) []Key {
	all, weights := 0, 0
	for _, n := range d.Started {
		all += n
	}
	names := sortedKeys(d.Keys, d.Started)
	keys := make([]Key, 0, len(names))
	for _, k := range names {
		key := Key{Key: k, Waiting: d.Keys[k], Started: d.Started[k], Weight: max(d.Weights[k], 1)}
		if all > 0 {
			key.Share = float64(key.Started) / float64(all)
		}
		weights += key.Weight
		keys = append(keys, key)
	}
	for i := range keys {
		keys[i].Fair = float64(keys[i].Weight) / float64(weights)
	}
	if len(keys) == 0 {
		return nil
	}
	return keys
}

// measured returns &v if ok, nil otherwise.
func measured(v float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	return &v
}

// ptr returns &v.
func ptr[T any](v T) *T { return &v }
