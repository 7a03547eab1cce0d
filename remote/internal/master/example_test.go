package master_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/codec"
	"github.com/evolvekit/evolve/remote/internal/master"
	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/rs/zerolog"
)

// A master's link claims its stage's name on a node; a second stage of the
// same name is refused until the first lets go.
func ExampleOpen() {
	n, err := node.Listen("127.0.0.1:0", "", nil, wire.DefaultMaxMessage)
	if err != nil {
		panic(err)
	}
	defer n.Close()
	cfg := master.Config{Name: "double", Append: codec.JSON.Append, Decode: codec.JSON.Decode, MaxSlots: 8, Heartbeat: time.Second,
		WorkError: func(addr, text string) error { return fmt.Errorf("%s: %s", addr, text) }}
	post := func(agent.Msg) bool { return true }
	port, err := master.Open[int, int](n, cfg, post, zerolog.Nop())
	fmt.Println(err)
	_, err = master.Open[int, int](n, cfg, post, zerolog.Nop())
	fmt.Println(err != nil)
	port.Close()
	port, err = master.Open[int, int](n, cfg, post, zerolog.Nop())
	fmt.Println(err)
	port.Close()
	// Output:
	// <nil>
	// true
	// <nil>
}
