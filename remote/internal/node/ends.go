package node

import (
	"sync"

	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
)

// ends reports the end of the node's connections to its peers.
//
// protoactor reports a connection that fails, or whose peer says it is
// stopping, on the actor system's event stream, from the goroutine that
// reads the connection; its endpoint manager's handler then looks the peer
// up in a map that the manager's stop sets to nil. A report whose
// goroutine took the handler just before the stop, and then waited for a
// core all through it, dereferences nil and ends the process. So the
// node's outlets report a peer's end themselves, under a lock the node's
// stop takes first, and hand protoactor a clean end of stream, which it
// does not report; from the stop on, nothing is reported, as no one is
// left to hear it.
type ends struct {
	mu      sync.RWMutex
	events  *eventstream.EventStream // nil until the node has a system
	stopped bool
}

// report tells the node's system that the connection to the peer at addr
// has ended, unless the node has begun to stop.
func (e *ends) report(addr string) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.stopped || e.events == nil {
		return
	}
	e.events.Publish(&remote.EndpointTerminatedEvent{Address: addr})
}

// stop waits for the reports under way and makes every later one a no-op.
func (e *ends) stop() {
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
}
