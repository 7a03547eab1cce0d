package remote

import "github.com/evolvekit/evolve/remote/internal/node"

// ListenAdvertising starts a node that listens at bind and tells its peers
// to reach it at advertise, as Listen does with one address: the tests put
// a proxy of their own at advertise, in front of bind.
func ListenAdvertising(bind, advertise string) (*Node, error) {
	n, err := node.Listen(bind, advertise, nil, DefaultMaxMessage)
	if err != nil {
		return nil, err
	}
	return &Node{n: n}, nil
}
