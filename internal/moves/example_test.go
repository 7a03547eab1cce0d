package moves_test

import (
	"fmt"

	"github.com/evolvekit/evolve/internal/moves"
)

type toGPU struct{ state string }

func (m toGPU) Error() string                  { return "move to gpu" }
func (m toGPU) MoveTo() (tag string, next any) { return "gpu", m.state }

func Example() {
	err := fmt.Errorf("resize: %w", toGPU{"half done"})
	if m, ok := moves.Of(err); ok {
		tag, next := m.MoveTo()
		fmt.Printf("goes on where %q is held, with %v\n", tag, next)
	}
	fmt.Println(moves.Path([]string{"stop-words", "model"}))
	// Output:
	// goes on where "gpu" is held, with half done
	// "stop-words" → "model"
}
