// Package wire holds the protobuf messages that a remote stage's master and
// its workers exchange, generated from wire.proto. Both sides link this one
// package, so every message one sends the other knows.
//
// The generated wire.pb.go is committed. To make it anew, with protoc on the
// PATH (Debian's protobuf-compiler) and protoc-gen-go built from the
// version of google.golang.org/protobuf in go.mod:
//
//	go generate ./remote/internal/wire
package wire

//go:generate sh -c "go build -o \"${TMPDIR:-/tmp}/evolve-protoc-gen-go\" google.golang.org/protobuf/cmd/protoc-gen-go && protoc --plugin=protoc-gen-go=\"${TMPDIR:-/tmp}/evolve-protoc-gen-go\" --go_out=. --go_opt=paths=source_relative wire.proto"
