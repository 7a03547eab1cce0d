// Typewriter shows a chain of agents at work: every key goes through a rate
// agent, a parallel agent that works on it, and a buffer agent that makes
// lines of keys and appends each to a file.
//
//	go run ./typewriter                      # type; watch keys, agents and lines
//	printf 'hello world' | go run ./typewriter -r 100 -b 5 --work-delay 10ms --flush-delay 0
//
// With input piped in, every character but newline is a key, and a newline
// logs every agent's status to stderr. At the end of the input the chain
// drains, and the exit status is 0 once every key is in the file.
//
// The file's lines, concatenated, are the keys typed, in order.
package main
