package readme

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const readmePath = "../../../README.md"

// A block is a ```go block of the README: its first line's number and its
// lines, as written.
type block struct {
	line  int
	lines []string
}

// A fn is a function of this package's test files: its name, its body's
// lines, and the import paths of the packages its body names.
type fn struct {
	name    string
	body    []string
	imports []string
}

// TestREADME checks that every ```go block of the README is held by a
// function of this package, which compiles with the tests; and that every
// function of snippets is shown, so that none is left to drift.
func TestREADME(t *testing.T) {
	src, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(string(src))
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	fns := functions(t)
	shown := map[string]bool{}
	for _, b := range blocks {
		name, err := holder(b, fns)
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
			continue
		}
		shown[name] = true
	}
	for _, f := range fns {
		if _, listed := snippets[f.name]; strings.HasPrefix(f.name, "snippet") && !listed {
			t.Errorf("%s is not listed in snippets", f.name)
		}
	}
	for name := range snippets {
		if !shown[name] {
			t.Errorf("%s is not in README.md: show it, or remove it", name)
		}
	}
}

// snippets names the functions that hold the README's blocks. They all
// compile with the tests; the first program runs as Example_hello, and the
// durable one in TestDurableResumes. The others are not run: they would
// listen at the README's addresses, read its certificate files, or wait
// for workers.
var snippets = map[string]any{
	"snippetHello":       snippetHello,
	"snippetUse":         snippetUse,
	"snippetRetry":       snippetRetry,
	"snippetKeys":        snippetKeys,
	"snippetChain":       snippetChain,
	"snippetMaster":      snippetMaster,
	"snippetWorker":      snippetWorker,
	"snippetMove":        snippetMove,
	"snippetTLSMaster":   snippetTLSMaster,
	"snippetTLSWorker":   snippetTLSWorker,
	"snippetDurable":     snippetDurable,
	"snippetSharedLimit": snippetSharedLimit,
	"snippetMetrics":     snippetMetrics,
	"snippetHistograms":  snippetHistograms,
	"snippetEvolve":      snippetEvolve,
}

// holder returns the name of the function that holds b. A whole program
// (package main) must have main's body as a function's whole body, and
// import just the packages that body names; any other block must be a run
// of a function's lines.
func holder(b block, fns []fn) (string, error) {
	if len(normalize(b.lines)) == 0 {
		return "", fmt.Errorf("this Go block is empty")
	}
	if strings.HasPrefix(strings.TrimSpace(b.lines[0]), "package ") {
		return programHolder(b, fns)
	}
	want := normalize(b.lines)
	for _, f := range fns {
		if contains(f.body, want) {
			return f.name, nil
		}
	}
	return "", fmt.Errorf("this Go block is in no function of internal/testing/readme, so nothing compiles it: make it (whitespace aside) a run of lines of a snippet function there, beginning %q", want[0])
}

func programHolder(b block, fns []fn) (string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "README.md", strings.Join(b.lines, "\n"), parser.ParseComments)
	if err != nil {
		return "", fmt.Errorf("this program does not parse: %v", err)
	}
	var main *ast.FuncDecl
	for _, d := range file.Decls {
		if f, ok := d.(*ast.FuncDecl); ok && f.Name.Name == "main" {
			main = f
		}
	}
	if main == nil {
		return "", fmt.Errorf("this program has no func main")
	}
	want := normalize(bodyLines(fset, b.lines, main.Body))
	var paths []string
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, f := range fns {
		if !slices.Equal(f.body, want) {
			continue
		}
		if !slices.Equal(paths, f.imports) {
			return "", fmt.Errorf("this program imports %v; the body of its main, %s, uses %v", paths, f.name, f.imports)
		}
		return f.name, nil
	}
	return "", fmt.Errorf("the body of this program's main is no function's body in internal/testing/readme, so nothing compiles it")
}

// goBlocks returns the README's ```go blocks, indented or not.
func goBlocks(src string) []block {
	var out []block
	var cur *block
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && trimmed == "```go":
			cur = &block{line: i + 2}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// functions parses this package's test files and returns their functions.
func functions(t *testing.T) []fn {
	t.Helper()
	names, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []fn
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		for _, d := range file.Decls {
			if f, ok := d.(*ast.FuncDecl); ok && f.Body != nil {
				out = append(out, fn{name: f.Name.Name,
					body:    normalize(bodyLines(fset, lines, f.Body)),
					imports: used(file, f.Body)})
			}
		}
	}
	return out
}

// bodyLines returns the lines strictly between body's braces, which
// gofmt puts on lines of their own for any function of more than a line.
func bodyLines(fset *token.FileSet, lines []string, body *ast.BlockStmt) []string {
	from, to := fset.Position(body.Lbrace).Line, fset.Position(body.Rbrace).Line
	if to-from < 2 {
		return nil
	}
	return lines[from : to-1]
}

// used returns the import paths of the packages body names, sorted.
func used(file *ast.File, body *ast.BlockStmt) []string {
	byName := map[string]string{}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		byName[name] = p
	}
	seen := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && byName[id.Name] != "" {
				seen[byName[id.Name]] = true
			}
		}
		return true
	})
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// normalize drops blank lines and makes each run of spaces and tabs one
// space, so that the README may indent and align as it likes.
func normalize(lines []string) []string {
	var out []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, strings.Join(f, " "))
		}
	}
	return out
}

// contains reports whether run appears in lines, its lines in a row.
func contains(lines, run []string) bool {
	for i := 0; i+len(run) <= len(lines); i++ {
		if slices.Equal(lines[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
