//go:build unix

// Package dirlock keeps one process at a time on an embedded queue's
// directory.
package dirlock

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// name is the file in the directory that the process holding it keeps
// locked.
const name = "evolve-durable.lock"

// ErrInUse is a directory another lock holds, in this process or another.
var ErrInUse = errors.New("in use: another queue, in this process or another, has it open")

// Lock takes the lock of dir, so that no other Open, in this process or
// another, runs a second server on the same store; the lock goes with the
// file it returns, when that is closed or the process ends. It returns
// ErrInUse if another holds it.
func Lock(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrInUse
		}
		return nil, err
	}
	return f, nil
}
