package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPiped runs the typewriter, the whole program as main runs it, on any
// bytes piped in: a chain of real agents (rate, parallel or adaptive,
// buffer) writing to a real file. Every rune but a newline is a key, a
// byte that is not valid UTF-8 the key U+FFFD, and a newline logs the
// status of every agent. It checks that the program does not panic and
// exits 0; that the file holds every key, in order, in lines of the size
// asked for (the last one shorter); that stdout counts the keys and the
// lines; and that stderr holds one status event of the chain per newline
// and nothing but status events.
//
// The input's first byte picks the flags: -b 1 + b%9, and -p 1 to 4 or
// auto (b/9 % 5). The rest is what is piped in, of which the first
// fzMaxInput bytes are read, so that a run takes a few milliseconds: the
// rate is a key a microsecond, and the work and the flush take no time.
func FuzzPiped(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte("\x04hello world"))
	f.Add([]byte("\x2eab\ncd\n"))
	f.Add([]byte("\x17日本語 😀🎉 éü\tx\r\n\n"))
	f.Add([]byte("\x09\xff\xfe\xc3(\xe2\x28\xa1\xf0\x9f\x98\xed\xa0\x80\xef\xbf\xbd\x00z"))
	f.Add([]byte("\x3a" + strings.Repeat("adaptive ✓ ", 12) + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		flags, input := data[0], data[1:min(len(data), 1+fzMaxInput)]
		size := 1 + int(flags)%9
		p := []string{"1", "2", "3", "4", "auto"}[int(flags)/9%5]
		path := filepath.Join(t.TempDir(), "typewriter.txt")
		var stdout, stderr bytes.Buffer
		code := run([]string{"-f", path, "-r", "1000000", "-p", p, "-b", fmt.Sprint(size),
			"--work-delay", "0", "--flush-delay", "0"}, bytes.NewReader(input), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("-p %s -b %d on %q: exit status %d, stderr %s", p, size, input, code, stderr.String())
		}
		fzCheckFile(t, path, fzKeys(input), size)
		fzCheckStderr(t, stderr.String(), bytes.Count(input, []byte("\n")))
		keys := utf8.RuneCountInString(fzKeys(input))
		want := fmt.Sprintf("typewriter: %s in %s in %s\n", plural(keys, "key"), plural((keys+size-1)/size, "line"), path)
		if stdout.String() != want {
			t.Fatalf("stdout %q, want %q", stdout.String(), want)
		}
	})
}

// fzMaxInput bounds the bytes piped in per run.
const fzMaxInput = 200

// fzKeys returns the keys the typewriter types from input: its runes but
// newlines, each byte that is not valid UTF-8 becoming U+FFFD, as
// bufio.Reader.ReadRune reads them.
func fzKeys(input []byte) string {
	var keys strings.Builder
	for len(input) > 0 {
		k, n := utf8.DecodeRune(input)
		input = input[n:]
		if k != '\n' {
			keys.WriteRune(k)
		}
	}
	return keys.String()
}

// fzCheckFile checks that the file at path holds keys, in order, in lines
// of size keys, the last one holding what is left.
func fzCheckFile(t *testing.T, path, keys string, size int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if keys == "" {
		if text != "" {
			t.Fatalf("no keys, and the file holds %q", text)
		}
		return
	}
	if !strings.HasSuffix(text, "\n") {
		t.Fatalf("the file does not end in a newline: %q", text)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if got := strings.Join(lines, ""); got != keys {
		t.Fatalf("the file holds %q, want %q", got, keys)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n != size && (i < len(lines)-1 || n < 1 || n > size) {
			t.Fatalf("line %d of %d holds %d keys, lines of %d: %q", i+1, len(lines), n, size, lines)
		}
	}
}

// fzCheckStderr checks that stderr holds nothing but status events, one
// of the chain for each of the input's newlines.
func fzCheckStderr(t *testing.T, stderr string, newlines int) {
	t.Helper()
	chain := 0
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line == "" {
			continue
		}
		var ev struct {
			Level, Message, Chain string
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Level != "info" || ev.Message != "status" {
			t.Fatalf("stderr holds %q, not a status event (%v)", line, err)
		}
		if ev.Chain != "" {
			chain++
		}
	}
	if chain != newlines {
		t.Fatalf("%d status events of the chain for %d newlines: %s", chain, newlines, stderr)
	}
}
