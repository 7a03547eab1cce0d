//go:build !unix

// Package dirlock keeps one process at a time on an embedded queue's
// directory.
package dirlock

import (
	"errors"
	"os"
)

// ErrInUse is a directory another lock holds, in this process or another.
var ErrInUse = errors.New("in use: another queue, in this process or another, has it open")

// Lock does nothing where flock is not available: only one process
// should open a directory at a time, and nothing checks it.
func Lock(string) (*os.File, error) { return nil, nil }
