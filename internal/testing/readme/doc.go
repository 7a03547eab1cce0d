// Package readme holds the test that keeps the README's Go compiling: every
// ```go block of README.md is the body of a function in this package's test
// files, or a run of its lines, whitespace aside, and those functions
// compile with the tests. A snippet that no longer compiles fails
// `go test ./...`, and so does a README block that no function holds. The
// first program also runs, as an Example, and the durable one runs twice
// in one directory, to show that the second run writes nothing. It has no
// code of its own.
package readme
