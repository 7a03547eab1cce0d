package clients_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/clients"
)

// Two clients' campaigns: which email is whose, and a line of their
// shares of the emails sent.
func Example() {
	cs, err := clients.Parse("acme:3,globex:1:3", 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan := clients.NewPlan(cs)
	fmt.Println(plan, "-", plan.Of(1), plan.Of(4))
	start := time.Unix(0, 0)
	shares := clients.NewShares(plan, start)
	shares.Sent("acme", start.Add(time.Second))
	shares.Sent("globex", start.Add(time.Second))
	fmt.Println(shares.Line())
	// Output:
	// acme 3, globex 1 (weight 3) - acme globex
	// shares of the emails sent: acme 50% (fair 25%) globex 50% (fair 75%, done)
}
