package browser_test

import (
	"testing"

	"github.com/evolvekit/evolve/internal/testing/browser"
)

// A test finds the browser, or is skipped, then loads a page.
func Example() {
	_ = func(t *testing.T, url string) {
		bin := browser.Find(t)
		dom, logged := browser.Browse(t, bin, url, "--dump-dom")
		_, _ = dom, logged
	}
}
