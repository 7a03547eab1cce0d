package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// Example shows the two ways the program runs: as the master of a
// campaign, which starts its own workers unless told -workers 0, and as a
// worker for a master at an address the master prints.
func Example() {
	var out, errs bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, &out, &errs); err != nil {
		fmt.Println(err)
		return
	}
	lines := strings.Split(out.String(), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[1])
	// Output:
	// usage: mailer [flags]
	//        mailer -worker -master ADDR [-slots N] [-name NAME] [-listen ADDR]
}
