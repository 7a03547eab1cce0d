package errs_test

import (
	"errors"
	"testing"

	"github.com/evolvekit/evolve/internal/errs"
	"github.com/stretchr/testify/assert"
)

func TestInvalidNamesTheSettingAndWrapsItsKind(t *testing.T) {
	kind := errors.New("pkg: invalid setting")
	err := errs.Invalid(kind, "pkg", "size must be at least %d, got %d", 1, 0)
	assert.EqualError(t, err, "pkg: size must be at least 1, got 0")
	assert.ErrorIs(t, err, kind)
	assert.NotErrorIs(t, err, errors.New("pkg: invalid setting"))
}
