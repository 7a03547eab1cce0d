package fleet_test

import (
	"fmt"
	"io"

	"github.com/evolvekit/evolve/examples/mailer/internal/fleet"
)

// A Fleet prints the command line that starts one more worker for its
// master, for the user to run by hand, with its extra flags quoted as a
// shell needs them; this starts no process.
func ExampleFleet_Command() {
	f, err := fleet.New("127.0.0.1:7070", 4, []string{"-tls-ca", "/tmp/my ca.pem"}, io.Discard)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(f.Command())
	fmt.Println("workers started:", len(f.All()))
	// Output:
	// go run ./examples/mailer -worker -master 127.0.0.1:7070 -slots 4 -tls-ca "/tmp/my ca.pem"
	// workers started: 0
}
