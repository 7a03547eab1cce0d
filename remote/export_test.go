package remote

// ListenAdvertising starts a node that listens at bind and tells its peers
// to reach it at advertise, as Listen does with one address: the tests put
// a proxy of their own at advertise, in front of bind.
func ListenAdvertising(bind, advertise string) (*Node, error) {
	n := newNode()
	sys, halt, err := start(bind, advertise, n.guard, nil)
	if err != nil {
		n.tally.Stop()
		return nil, err
	}
	n.sys, n.halt, n.addr = sys, halt, sys.Address()
	return n, nil
}
