package starved

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The lines say when emails wait with no worker, once each time that
// begins, when those in the stage fail, and how many failed for want of a
// worker; a worker registered again is said too.
func TestStarvedSaysWhenEmailsWaitForAWorkerAndWhenTheyFail(t *testing.T) {
	var out bytes.Buffer
	s := &Watch{Out: &out, Wait: 2 * time.Minute, Command: func() string { return "CMD" }}
	at := time.Date(2025, 5, 1, 10, 0, 0, 0, time.Local)
	one := Stage{Workers: 1}
	s.Note(one, true, at)
	assert.Empty(t, out.String(), "a worker is registered")

	s.Note(Stage{Waiting: 8}, true, at)
	s.Note(Stage{Waiting: 8}, true, at.Add(time.Second))
	assert.Equal(t, "mailer: no worker registered: 8 emails wait in the stage for one, and fail for good at 10:02:00 (-wait 2m0s) unless one registers; start one with: CMD\n", out.String(), "said once")

	out.Reset()
	for range 8 {
		s.NoWorker()
	}
	s.Note(Stage{}, true, at.Add(2*time.Minute))
	assert.Equal(t, "mailer: 8 emails have failed for good for want of a worker (remote.ErrNoWorker): none could take them within -wait 2m0s\n"+
		"mailer: no worker registered: the emails wait for one; start one with: CMD\n", out.String())

	out.Reset()
	s.Note(Stage{}, true, at.Add(3*time.Minute))
	s.Flush()
	assert.Empty(t, out.String(), "nothing new")
	s.Note(one, true, at.Add(4*time.Minute))
	assert.Equal(t, "mailer: 1 workers registered: the emails go on\n", out.String())

	out.Reset()
	s.Note(Stage{}, false, at.Add(5*time.Minute))
	assert.Empty(t, out.String(), "no worker, but no email waits: nothing to say")
}
