package scale_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/scale"
)

// names is a made-up fleet: it starts no process, and names its workers
// w1, w2, and so on.
type names struct{ next int }

func (f *names) Start() (string, error) {
	f.next++
	return fmt.Sprintf("w%d", f.next), nil
}

func (f *names) Stop(string) error { return nil }

// lines is where a Scaler writes a line for each change: each goes on a
// channel, without the time it begins with.
type lines chan string

func (l lines) Write(p []byte) (int, error) {
	_, rest, _ := strings.Cut(strings.TrimSpace(string(p)), "the stage")
	l <- "the stage" + rest
	return len(p), nil
}

// A Scaler reads its bounds as -autoscale gives them, and follows the
// workers the stage wants within them: it starts workers up to a want,
// and stops the newest down to the least it keeps.
func ExampleScaler() {
	least, most, err := scale.Parse("1:4", 64)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make(lines)
	s := scale.New(least, most, &names{next: 1}, []string{"w1"}, out, time.Now())
	quit, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); s.Run(quit) }()

	s.Want(3) // the stage's hook, as remote.Config.OnWant calls it
	fmt.Println(<-out)
	s.Want(0)
	fmt.Println(<-out)
	close(quit)
	<-done
	fmt.Println("w3 stopped for want of work:", s.Stopped("w3"))
	fmt.Println(s.Summary())
	// Output:
	// the stage wants 3 workers: started w2, started w3 (3 running)
	// the stage wants 0 workers: stopped w3, stopped w2 (1 running)
	// w3 stopped for want of work: true
	// 1 to 4 workers as the stage wanted; at most 3 at once, 2 changes
}
