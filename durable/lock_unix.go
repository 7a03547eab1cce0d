//go:build unix

package durable

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockName is the file in an embedded queue's directory that the process
// holding the queue keeps locked.
const lockName = "evolve-durable.lock"

// lockDir takes the lock of dir, so that no other Open, in this process or
// another, runs a second server on the same store; the lock goes with the
// file it returns, when that is closed or the process ends.
func lockDir(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStore, dir, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is in use: another queue, in this process or another, has it open", ErrStore, dir)
		}
		return nil, fmt.Errorf("%w: %s: locking: %v", ErrStore, dir, err)
	}
	return f, nil
}
