// Package browser runs Debian's headless Chromium on a page for the tests
// of the live page: it finds the browser (or skips the test, naming the
// package to install) and returns what it printed and logged.
package browser

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Find returns the path of a Chromium, or skips t, saying which package
// to install, when the machine has none.
func Find(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("internal/livepage: no chromium on this machine (Debian's package chromium): the browser test is skipped")
	return ""
}

// Browse runs the headless Chromium bin on url with args, the page's
// script given three seconds of virtual time to poll, within a minute of
// real time, and returns what it printed and logged.
func Browse(t testing.TB, bin, url string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + dir,
		"--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000", "--window-size=1200,700"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, url)...)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, errs.String())
	}
	return out.String(), errs.String()
}
