// Package node is where a remote stage's parties meet the network: a
// protoactor actor system with remoting, bound to one address, hardened
// against what peers may send (package guard), with mutual TLS or the
// loopback, a bounded stop, and refusals counted. A master's node ([Node],
// which package remote's Node wraps) serves the stages on it; a worker
// starts one of its own with [Start].
package node

import (
	"crypto/tls"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// Node is the node the masters of remote stages listen on for their
// workers. Several stages may share a node, each under its own name.
type Node struct {
	sys   *actor.ActorSystem
	halt  func() // stops sys and its remoting
	addr  string
	tally *guard.Tally // the refusals not yet reported
	guard *guard.Guard
	max   int // the most bytes of a message it takes or sends

	mu     sync.Mutex
	stages map[string]stage // the stages running
	closed bool
}

// stage is what a node knows of a stage running on it: where its refusals
// go, and its heartbeat.
type stage struct {
	tell      Tell
	heartbeat time.Duration
}

// Tell takes the refusals of a node's peers that concern a stage (its own,
// and the node's), counted over an interval, and the reason of the last.
type Tell func(refused int, last string)

// Listen starts a node listening at addr, whose connections are mutual TLS
// with creds, or in the clear for creds nil (the caller has checked them
// with Credentials). Peers reach it at advertise, if not empty, and at the
// address it listens at otherwise. No message it takes or sends is over
// maxMessage bytes.
func Listen(addr, advertise string, creds *tls.Config, maxMessage int) (*Node, error) {
	n := &Node{stages: make(map[string]stage), max: maxMessage}
	n.tally = guard.NewTally(RefusalEvery, n.report)
	n.guard = guard.New(WirePackage, func(why string) { n.tally.Add("", why) })
	sys, halt, err := Start(addr, advertise, n.guard, creds, maxMessage)
	if err != nil {
		n.tally.Stop()
		return nil, err
	}
	n.sys, n.halt, n.addr = sys, halt, sys.Address()
	return n, nil
}

// MaxMessage returns the most bytes of a message the node takes or sends.
func (n *Node) MaxMessage() int { return n.max }

// RefusalEvery is how often refusals are counted in a stage's Status and
// logged.
const RefusalEvery = time.Second

// Refuse counts a message that the stage name ("" for the node) refused.
func (n *Node) Refuse(name, why string) { n.tally.Add(name, why) }

// report tells the stages the refusals that concern them: their own, and
// the node's.
func (n *Node) report(counts map[string]int, last string) {
	n.mu.Lock()
	stages := maps.Clone(n.stages)
	n.mu.Unlock()
	for name, s := range stages {
		if c := counts[""] + counts[name]; c > 0 {
			s.tell(c, last)
		}
	}
}

// Addr returns the address the node listens at, as workers must give it.
func (n *Node) Addr() string { return n.addr }

// System returns the node's actor system.
func (n *Node) System() *actor.ActorSystem { return n.sys }

// Close stops the node (see Start), once; later calls do nothing.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	n.mu.Unlock()
	n.halt()
	n.tally.Stop()
	return nil
}

// Claim reserves name for a stage on the node, whose refusals go to tell,
// and whose workers beat once a heartbeat.
func (n *Node) Claim(name string, heartbeat time.Duration, tell Tell) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.closed:
		return fmt.Errorf("remote: the node at %s is closed", n.addr)
	case n.stages[name].tell != nil:
		return fmt.Errorf("remote: a stage named %q already runs on the node at %s", name, n.addr)
	}
	n.stages[name] = stage{tell: tell, heartbeat: heartbeat}
	n.quiet()
	return nil
}

// Free gives name back once its stage has ended.
func (n *Node) Free(name string) {
	n.mu.Lock()
	delete(n.stages, name)
	n.quiet()
	n.mu.Unlock()
}

// quiet lets a worker's new connection replace its old one once that has
// been silent for as long as the stages give a worker up: a worker cut
// off by a partition, whose old connection the node still holds open,
// comes back over a new one. With no stage running, none is replaced.
func (n *Node) quiet() {
	var most time.Duration
	for _, s := range n.stages {
		most = max(most, s.heartbeat)
	}
	n.guard.SetQuiet(wire.Misses * most)
}
