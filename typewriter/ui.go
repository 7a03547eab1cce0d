package main

import (
	"errors"
	"io"
	"os"
)

func interactive(cfg config, st stages, out *output, tty *os.File, stdout, stderr io.Writer) int {
	return fail(stderr, errors.New("on a terminal: pipe the keys in instead"))
}
