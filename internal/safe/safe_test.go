package safe_test

import (
	"errors"
	"io"
	"testing"

	"github.com/evolvekit/evolve/internal/safe"
	"github.com/stretchr/testify/require"
)

func parse(fail bool) (n int, err error) {
	defer safe.Recover(&err)
	if fail {
		panic(io.ErrUnexpectedEOF)
	}
	return 1, nil
}

func TestRecoverTurnsAPanicIntoTheFunctionsError(t *testing.T) {
	n, err := parse(false)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	_, err = parse(true)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "a panic with an error unwraps to it")
	require.Contains(t, err.Error(), "panic: ")
}

func TestDoLeavesAnErrorlessCallAlone(t *testing.T) {
	require.NoError(t, safe.Do(func() {}))
	require.True(t, errors.Is(safe.Do(func() { panic(io.EOF) }), io.EOF))
}
