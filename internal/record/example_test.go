package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/record"
)

// An agent writes each step to its tape: the message before its evolve
// takes it, the effects after. A reader reads the steps back, the message
// into the agent's own type, and a replay compares the effects it gets
// again, encoded, with those recorded.
func Example() {
	var out bytes.Buffer
	base := time.Now()
	r := record.New(&out, base, []string{"upper"})
	tape := r.Tape(0, "upper")
	r.Seal() // every agent has its tape

	in := agent.Input[string]{At: base.Add(time.Millisecond), Items: []string{"a", "b"}}
	fx := []agent.Effect{agent.Emit[string]{Values: []string{"A", "B"}}, agent.Demand{N: 2}}
	tape.Before(in)
	tape.After(fx)
	tape.Final(base.Add(2*time.Millisecond), 2, true)
	tape.Close()
	<-r.Done()

	rd, err := record.Read(&out)
	if err != nil {
		fmt.Println(err)
		return
	}
	dec := record.NewDecoder(rd.Base(), []agent.Msg{agent.Input[string]{}})
	for {
		e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		if e.Final {
			fmt.Printf("%s ended with %s\n", e.Name, e.Status())
			continue
		}
		m, err := e.Message(dec)
		if err != nil {
			fmt.Println(err)
			return
		}
		again, err := record.EncodeEffects(rd.Base(), fx)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s step %d: %v at +%v\n", e.Name, e.Step, m.(agent.Input[string]).Items, e.At.Sub(rd.Base()))
		fmt.Printf("effects %s, the same again: %t\n", e.Effects(), bytes.Equal(again, e.Effects()))
	}
	// Output:
	// upper step 1: [a b] at +1ms
	// effects [{"Emit":{"Values":["A","B"]}},{"Demand":{"N":2}}], the same again: true
	// upper ended with 2
}
