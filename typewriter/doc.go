// Typewriter shows a chain of agents at work. Every key goes through a rate
// agent, which lets keys through no faster than -r a second; a parallel agent,
// whose work on a key takes --work-delay, with at most -p keys in flight (or,
// with -p auto, as many as it learns is best); and a buffer agent, which makes
// a line of every -b keys and appends it to the file -f after --flush-delay.
// Each stage takes only what the next has room for, so a fast typist fills
// the queues and waits; nothing is lost, and the file's lines, concatenated,
// are the keys typed, in order.
//
//	go run ./typewriter
//	go run ./typewriter -r 5 -p 4 -b 20 --work-delay 2s
//	printf 'hello world' | go run ./typewriter -r 100 -b 5 --work-delay 10ms --flush-delay 0
//
// On a terminal it shows, side by side, the keys as the rate agent lets them
// through and the lines in the file as each flush ends; under them, a line of
// status per agent (keys queued and in flight, or flushing for the buffer's
// line being written, its tokens or its limit, keys done and failed, and its
// demand: how many more it may pass on, or unbounded), the keys typed but not
// yet taken by the chain, and the log; at the bottom, the keys, a message
// that goes after a few seconds, and the time elapsed. ? shows a legend in
// place of the panes and the log: a line for each word and figure on the
// screen. The keys:
//
//	any printable key   sends it down the chain (all but ?)
//	Enter               logs every agent's status in the log pane, in chain order
//	Ctrl-D or Esc       finish: stops taking keys, waits until every key typed is
//	                    in the file, exits 0
//	Ctrl-C twice        abort: drops at once what the chain holds, exits 130
//	?                   shows or hides the legend: what each word and figure on
//	                    the screen means (Esc hides it too)
//
// After Ctrl-D or Esc the last line is short unless the keys typed are a
// multiple of -b. The terminal is restored however the program ends. Exit status: 0 when
// every key typed is in the file; 1 on an error (the output file cannot be
// written, a flush failed, the display failed); 2 for bad flags; 130 when
// aborted with Ctrl-C twice or SIGINT.
//
// With input piped in, every character (a UTF-8 rune) but newline is a key,
// and a newline logs every agent's status to stderr, as JSON (or readable
// lines when stderr is a terminal). At the end of the input the chain
// drains; the exit status is 0 once every key is in the file.
package main
