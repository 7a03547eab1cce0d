package adaptive

import "math/rand/v2"

// Fixed is a controller that never changes the limit, for tests: an
// adaptive agent with it is a parallel agent whose limit SetLimit moves.
type Fixed struct{}

// Name returns "fixed".
func (Fixed) Name() string { return "fixed" }

// Observe keeps the limit as it is.
func (f Fixed) Observe(s Sample, _ *rand.Rand) (Controller, int) { return f, s.Limit }

// View has the phase "fixed" and no estimates.
func (Fixed) View() View { return View{Phase: "fixed"} }
