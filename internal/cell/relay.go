package cell

// An agent of a chain that hands values, demand or its end to a neighbour
// would wake that neighbour through its mailbox when the neighbour is idle:
// a message, and a goroutine of the dispatcher handed the neighbour's run.
// In a busy chain that hand-over is paid several times for each batch that
// passes. A relay saves it: while an agent takes in its inbox, the idle
// neighbours it wakes are noted in its relay instead, and once it is done,
// the same goroutine takes in their inboxes, then those of the agents they
// woke in turn, up to maxHops of them.
//
// It is safe because of the inbox's token: the one who set in.scheduled (by
// finding the agent idle) is the only one who may take its inbox in until
// takeIn clears it again, and every wake message is sent by that holder. A
// relay holds only the agents whose token its owner took, and it is touched
// only by the holder of its own agent's token.

// relay is the idle chain neighbours an agent woke during its rounds.
type Relay struct {
	on   bool      // the agent is taking in its inbox: the wakes it causes are noted
	woke []relayed // noted, in the order they were woken
}

// relayed is an agent a relay may hold.
type relayed interface {
	// visit takes the agent's inbox in on the caller's goroutine, whose
	// relay took its token, and returns woke with the agents its rounds
	// woke in turn appended.
	visit(woke []relayed) []relayed
	// wake sends the agent a wake message, with its token already taken.
	wake()
}

// maxHops is how many noted agents one goroutine takes in after its own
// rounds; the rest are woken through their mailboxes.
const maxHops = 8

// note adds h, whose token the caller took, to r, if r is on and h may be
// taken in on another goroutine; it reports whether it did.
func (r *Relay) note(h relayed, ready bool) bool {
	if r == nil || !r.on || !ready {
		return false
	}
	r.woke = append(r.woke, h)
	return true
}

// handOver moves what r noted to the end of woke and turns r off. The
// caller holds the token of r's agent and is about to let it go.
func (r *Relay) handOver(woke []relayed) []relayed {
	woke = append(woke, r.woke...)
	clear(r.woke)
	r.woke, r.on = r.woke[:0], false
	return woke
}

// runRelayed takes in the inboxes of the agents in woke, in turn, and of
// those they wake, on this goroutine, up to maxHops of them; it wakes the
// rest through their mailboxes. It returns woke emptied, for reuse.
func runRelayed(woke []relayed) []relayed {
	for i := 0; i < len(woke); i++ {
		if i >= maxHops {
			woke[i].wake()
			continue
		}
		woke = woke[i].visit(woke)
	}
	clear(woke)
	return woke[:0]
}
