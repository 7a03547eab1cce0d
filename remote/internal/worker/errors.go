package worker

import "errors"

// The errors Run returns, wrapped; package remote exports them, and its
// doc says when each comes.
var (
	ErrMasterGone  = errors.New("remote: the master is gone")
	ErrUnreachable = errors.New("remote: the master cannot be reached")
	ErrAbandoned   = errors.New("remote: work calls ignored the end of their context and were abandoned")
	ErrWedged      = errors.New("remote: the worker is wedged")
)
