package clients

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReadsClientsAndRefusesBadOnes(t *testing.T) {
	cs, err := Parse("acme:100, globex:20:3", 1000)
	require.NoError(t, err)
	assert.Equal(t, []Client{{"acme", 100, 1}, {"globex", 20, 3}}, cs)
	for spec, want := range map[string]string{
		"acme":             `"acme" is not NAME:EMAILS`,
		"acme:0":           "acme's emails must be a whole number of at least 1",
		"acme:1:0":         "acme's weight must be a whole number from 1 to 1000",
		"acme:1,acme:2":    "client acme is named twice",
		"acme:900,b:200":   "over 1000",
		":5":               `":5" is not NAME:EMAILS`,
		"acme:1:2:3":       "is not NAME:EMAILS",
		"acme:x":           "acme's emails must be",
		"acme:1:heavy":     "acme's weight must be",
		"acme:1,globex:-1": "globex's emails must be",
	} {
		_, err := Parse(spec, 1000)
		require.Error(t, err, spec)
		assert.Contains(t, err.Error(), want, spec)
	}
}

func TestPlanNumbersTheEmailsClientByClient(t *testing.T) {
	p := NewPlan([]Client{{"a", 3, 1}, {"b", 2, 2}})
	assert.Equal(t, 5, p.Total())
	var got []string
	for i := 1; i <= 5; i++ {
		got = append(got, p.Of(i))
	}
	assert.Equal(t, []string{"a", "a", "a", "b", "b"}, got)
	assert.Equal(t, map[string]int{"a": 1, "b": 2}, p.Weights())
}

func TestSharesSayEachClientsShareAgainstItsWeight(t *testing.T) {
	start := time.Unix(0, 0)
	s := NewShares(NewPlan([]Client{{"a", 6, 1}, {"b", 2, 3}}), start)
	assert.Empty(t, s.Line())
	for _, c := range []string{"a", "b", "b", "a"} {
		s.Sent(c, start.Add(time.Second))
	}
	assert.Equal(t, "shares of the emails sent: a 50% (fair 25%) b 50% (fair 75%, done)", s.Line())
	for range 4 {
		s.Sent("a", start.Add(2*time.Second))
	}
	assert.Equal(t, "shares of the emails sent: a 100% (fair 100%, done)", s.Line(), "b had no emails left")
	lines := s.Summary(4 * time.Second)
	require.Len(t, lines, 2)
	assert.Equal(t, "client a: 6 emails, weight 1, done after 2s (first come, first served: about 3s)", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "client b: 2 emails, weight 3, done after 1s"), lines[1])
}
