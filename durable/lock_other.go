//go:build !unix

package durable

import "os"

// lockDir does nothing where flock is not available: only one process
// should open a directory at a time, and nothing checks it.
func lockDir(string) (*os.File, error) { return nil, nil }
