package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// listed is one package of the module as go list reports it.
type listed struct {
	path, name string
	imports    []string
}

// packages lists the module's packages with their imports (test files not
// counted), as paths relative to the module.
func packages(t *testing.T) []listed {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \",\"}}", "github.com/evolvekit/evolve/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		p := listed{path: rel(f[0]), name: f[1]}
		if len(f) > 2 {
			for _, imp := range strings.Split(f[2], ",") {
				if strings.HasPrefix(imp, module) {
					p.imports = append(p.imports, rel(imp))
				}
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

const module = "github.com/evolvekit/evolve"

// rel returns an import path of the module relative to it; "." for its root.
func rel(path string) string {
	r := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	if r == "" {
		return "."
	}
	return r
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// internal reports whether path is machinery: under an internal/ folder.
func internal(path string) bool {
	return under(path, "internal") || strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal")
}

// against returns why importing imp from p runs against the layering, or "".
func against(p listed, imp string) string {
	switch {
	case under(p.path, "internal/testing"):
	case internal(p.path) && !internal(imp) && imp != "agent":
		return "machinery imports the public package " + imp
	case p.path == "agent" && !internal(imp):
		return "the contract imports " + imp
	case under(p.path, "agent") && p.path != "agent" && !internal(imp) && !under(imp, "agent"):
		return "a package under the contract imports the agent package " + imp
	}
	if p.name != "main" && (under(imp, "examples") || under(imp, "typewriter")) {
		return "a library package imports the program " + imp
	}
	return ""
}

func TestEveryImportRunsDown(t *testing.T) {
	pkgs := packages(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		for _, imp := range p.imports {
			if why := against(p, imp); why != "" {
				t.Errorf("%s -> %s: %s", p.path, imp, why)
			}
		}
	}
}

func TestTheRulesCatchWhatRunsUp(t *testing.T) {
	for _, c := range []struct {
		from, name, imp string
		bad             bool
	}{
		{"internal/budget", "budget", "parallel", true},
		{"internal/budget", "budget", "agent", false},
		{"internal/testing/retryfuzz", "retryfuzz", "parallel", false},
		{"remote/internal/wire", "wire", "remote", true},
		{"agent", "agent", "internal/core", false},
		{"agent", "agent", "compose", true},
		{"agent/agenttest", "agenttest", "agent", false},
		{"agent/sim", "sim", "parallel", true},
		{"compose", "compose", "typewriter", true},
		{"examples/mailer", "main", "remote", false},
	} {
		got := against(listed{path: c.from, name: c.name}, c.imp) != ""
		if got != c.bad {
			t.Errorf("%s -> %s: against the layering %v, want %v", c.from, c.imp, got, c.bad)
		}
	}
}

// TestOnlyDurableLinksNATS: a program that uses the agents, chains or the
// remote stage, and not package durable, links no NATS code.
func TestOnlyDurableLinksNATS(t *testing.T) {
	pkgs := []string{"agent", "parallel", "rate", "buffer", "adaptive", "compose", "remote", "sim", "spawn"}
	args := []string{"list", "-deps"}
	for _, p := range pkgs {
		args = append(args, module+"/"+p)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/nats-io/") {
			t.Errorf("a program importing %s links %s", strings.Join(pkgs, ", "), dep)
		}
	}
	out, err = exec.Command("go", "list", "-deps", module+"/durable").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !strings.Contains(string(out), "github.com/nats-io/nats-server/v2/server") {
		t.Error("durable does not link the NATS server: the check above proves nothing")
	}
}
