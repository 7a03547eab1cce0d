package mailserver

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// post POSTs the email id to the server at url, and returns the answer's
// status code.
func post(t *testing.T, url, id string) int {
	t.Helper()
	resp, err := http.Post(url+"/messages", "application/json", strings.NewReader(`{"id":"`+id+`"}`))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode
}

// TestAJournalCarriesTheCountsIntoTheNextRun runs a server on a journal,
// then another on the same journal after a crash cut its last line short:
// the second refuses a repeat of the first's email, and counts both runs
// together, and the runs before apart.
func TestAJournalCarriesTheCountsIntoTheNextRun(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "posts")
	m, err := Start(Config{Journal: journal})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, post(t, m.URL(), "<1@x>"))
	assert.Equal(t, http.StatusOK, post(t, m.URL(), "<1@x>"))
	assert.Equal(t, http.StatusCreated, post(t, m.URL(), "<2@x>"))
	assert.Equal(t, http.StatusBadRequest, post(t, m.URL(), `<3\n@x>`), "a Message-ID that would break the journal's lines")
	require.NoError(t, m.Close(context.Background()))
	f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("<4@")
	require.NoError(t, errors.Join(err, f.Close()))

	m, err = Start(Config{Journal: journal})
	require.NoError(t, err)
	defer func() { require.NoError(t, m.Close(context.Background())) }()
	before := Tally{Delivered: 2, Refused: 1}
	c, err := FetchTotals(t.Context(), m.URL())
	require.NoError(t, err)
	assert.Equal(t, Counts{Total: before, Before: before}, c, "the line cut short is not counted")
	assert.Equal(t, http.StatusOK, post(t, m.URL(), "<2@x>"), "delivered in the run before")
	assert.Equal(t, http.StatusCreated, post(t, m.URL(), "<4@x>"))
	c, err = FetchCounts(t.Context(), m.URL())
	require.NoError(t, err)
	assert.Equal(t, Counts{
		Posts:    map[string]int{"<1@x>": 2, "<2@x>": 2, "<4@x>": 1},
		ByWorker: map[string]Tally{"": {Delivered: 1, Refused: 1}},
		Total:    Tally{Delivered: 3, Refused: 2},
		Before:   before,
	}, c)
	data, err := os.ReadFile(journal)
	require.NoError(t, err)
	assert.Equal(t, "<1@x>\n<1@x>\n<2@x>\n<2@x>\n<4@x>\n", string(data))
}
