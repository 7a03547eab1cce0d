package remote

import "github.com/evolvekit/evolve/remote/internal/guard"

// ListenAdvertising starts a node that listens at bind and tells its peers
// to reach it at advertise, as Listen does with one address: the tests put
// a proxy of their own at advertise, in front of bind.
func ListenAdvertising(bind, advertise string) (*Node, error) {
	n := &Node{stages: make(map[string]func(int))}
	n.tally = guard.NewTally(refusalEvery, n.report)
	sys, halt, err := start(bind, advertise, n.tally, nil)
	if err != nil {
		n.tally.Stop()
		return nil, err
	}
	n.sys, n.halt, n.addr = sys, halt, sys.Address()
	return n, nil
}
