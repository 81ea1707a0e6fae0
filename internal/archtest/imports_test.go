package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/drover-project/drover"

// policy is either an allowlist ("only") or a denylist ("never") of
// module-relative package prefixes. An allowlist covers every module-local
// import, so it also keeps cmd/... out; a package's own subtree is always
// allowed.
type policy struct {
	allow    bool
	prefixes []string
	// direct limits the policy to the package's own imports: a layer may
	// be reached through another (agent -> server -> state) but not
	// imported.
	direct bool
}

func only(prefixes ...string) policy  { return policy{allow: true, prefixes: prefixes} }
func never(prefixes ...string) policy { return policy{prefixes: prefixes} }

// neverImports forbids importing the prefixes directly.
func neverImports(prefixes ...string) policy { return policy{prefixes: prefixes, direct: true} }

// rule applies its policy to pkg and every package below it.
type rule struct {
	pkg    string
	policy policy
}

// rules are the arrows of docs/design.md: structs <- state <- fsm <- server; scheduler
// sees only structs (state via an interface it declares); client never
// reaches into the server side; command only talks HTTP. Several rules may
// apply to one package; all must hold. Adding an arrow is one line here.
var rules = []rule{
	{"internal", never("cmd")},
	{"internal/structs", only()},
	{"internal/state", only("internal/structs")},
	{"internal/fsm", only("internal/structs", "internal/state")},
	{"internal/scheduler", only("internal/structs")},
	{"internal/client", never("internal/server", "internal/fsm", "internal/state", "internal/scheduler")},
	// Alloc networks (CNI) are a leaf of the client: the alloc runner sees
	// them through the Networks interface it declares.
	{"internal/client/allocnet", only("internal/structs")},
	{"internal/server", never("internal/agent", "internal/client", "internal/command")},
	// The cluster (raft, gossip, autopilot) sees the server only through
	// cluster.Host.
	{"internal/server/cluster", only("internal/structs", "internal/rpcwire", "internal/idfile")},
	// The leader role drives the pipeline's leaf packages; the server
	// implements the narrow interfaces it declares (no import of server).
	{"internal/server/leader", only("internal/structs", "internal/state", "internal/fsm", "internal/clock", "internal/scheduler",
		"internal/server/broker", "internal/server/blockedevals", "internal/server/planapply",
		"internal/server/deploywatch", "internal/server/drainer", "internal/server/periodic")},
	// The insight answers (why not placed, what-if, headroom) run the real
	// schedulers and the drainer's step on a snapshot seen through
	// scheduler.State: no state store, no raft, nothing written.
	{"internal/server/insight", only("internal/structs", "internal/scheduler", "internal/server/drainer")},
	{"internal/command", only("internal/jobspec")},
	{"internal/jobspec", only()},
	// The job-field contract is shared by the parser, the agent and the CLI.
	{"internal/jobspec/fields", only()},
	{"internal/acl", only()},
	{"internal/tlsutil", only()},
	{"internal/sim", never("internal/command")},
	// HTTP handlers call server endpoints, which read the state store.
	{"internal/agent", neverImports("internal/state")},
	{"internal/testutil/mock", only("internal/structs")},
	// Captured raft entries for the FSM's benchmark and the decoder's tests.
	{"internal/testutil/benchentries", only()},
	// Tokens, credentials and the keyring see the state store and nothing
	// of the server but the interface they declare (auth.Server).
	{"internal/server/auth", only("internal/acl", "internal/clock", "internal/server/coded", "internal/state", "internal/structs")},
	{"internal/server/coded", only()},
	// Auth methods' pure logic: JWT checks and binding rules.
	{"internal/server/authmethod", only("internal/server/coded", "internal/structs")},
	// The leaves: the clock and the pipeline's leaf packages import
	// nothing internal but what they do today.
	{"internal/clock", only()},
	{"internal/jsoncache", only()},
	{"internal/server/broker", only("internal/clock", "internal/structs")},
	{"internal/server/blockedevals", only("internal/clock", "internal/structs")},
	{"internal/server/planapply", only("internal/clock", "internal/state", "internal/structs")},
	{"internal/server/deploywatch", only("internal/structs")},
	{"internal/server/drainer", only("internal/structs")},
	{"internal/server/periodic", only("internal/structs")},
	{"internal/server/stream", only("internal/structs")},
}

// under reports whether path is prefix or inside it, by whole segments, so
// internal/state does not match internal/statex.
func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// permits reports whether a package governed by r may import imp (both
// module-relative).
func (r rule) permits(imp string) bool {
	matched := slices.ContainsFunc(r.policy.prefixes, func(p string) bool { return under(imp, p) })
	if !r.policy.allow {
		return !matched
	}
	return matched || under(imp, r.pkg)
}

// pkg is the part of `go list -json` output the rules need.
type pkg struct {
	ImportPath string
	Imports    []string // direct, excluding test files
	Deps       []string // transitive
	Error      *struct{ Err string }
}

// local turns a module import path into a module-relative one; ok is false
// for std and third-party packages, which the rules do not cover.
func local(path string) (string, bool) {
	if !under(path, module) {
		return "", false
	}
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/"), true
}

// violations checks every package against every matching rule. Transitive
// dependencies are checked too (an arrow broken through a middle package is
// still broken); the message then shows the import chain.
func violations(pkgs []pkg, rules []rule) []string {
	graph := map[string][]string{}
	for _, p := range pkgs {
		graph[p.ImportPath] = p.Imports
	}
	var out []string
	for _, p := range pkgs {
		from, ok := local(p.ImportPath)
		if !ok {
			continue
		}
		for _, dep := range unique(p.Imports, p.Deps) {
			to, ok := local(dep)
			if !ok || to == from {
				continue
			}
			for _, r := range rules {
				if r.policy.direct && !slices.Contains(p.Imports, dep) {
					continue
				}
				if under(from, r.pkg) && !r.permits(to) {
					out = append(out, describe(graph, p.ImportPath, dep, r))
				}
			}
		}
	}
	return out
}

func unique(lists ...[]string) []string {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

func describe(graph map[string][]string, from, to string, r rule) string {
	kind := "never"
	switch {
	case r.policy.allow:
		kind = "only"
	case r.policy.direct:
		kind = "neverImports"
	}
	why := fmt.Sprintf("rule %s: %s(%s)", r.pkg, kind, strings.Join(r.policy.prefixes, ", "))
	if slices.Contains(graph[from], to) {
		return fmt.Sprintf("%s imports %s (%s)", from, to, why)
	}
	chain := strings.Join(importChain(graph, from, to), " -> ")
	return fmt.Sprintf("%s depends on %s via %s (%s)", from, to, chain, why)
}

// importChain finds a shortest import path from -> to by breadth-first
// search, so the report points at the import to remove.
func importChain(graph map[string][]string, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var chain []string
			for n := to; n != ""; n = prev[n] {
				chain = append([]string{n}, chain...)
			}
			return chain
		}
		for _, next := range graph[cur] {
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return []string{from, "?", to}
}

// moduleRoot walks up from the working directory to the go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// listPackages runs `go list` rather than x/tools/go/packages to avoid a
// dependency. -e keeps going past packages that do not build, because a
// half-written package elsewhere must not hide layering violations.
func listPackages(root string) ([]pkg, error) {
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

func TestImportArrows(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := listPackages(root)
	if err != nil {
		t.Fatal(err)
	}
	// Guard against a vacuous pass: the model package always exists.
	if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.ImportPath == module+"/internal/structs" }) {
		t.Fatalf("go list did not report %s/internal/structs; found %d packages", module, len(pkgs))
	}
	for _, p := range pkgs {
		if p.Error != nil {
			t.Logf("note: %s: %s (imports still checked)", p.ImportPath, p.Error.Err)
		}
	}
	for _, v := range violations(pkgs, rules) {
		t.Error(v)
	}
}

// ---- self-checks of the matcher, so TestImportArrows cannot pass vacuously ----

// fake builds a go list entry for a module-relative package.
func fake(path string, imports ...string) pkg {
	p := pkg{ImportPath: module + "/" + path}
	for _, i := range imports {
		if under(i, "internal") || under(i, "cmd") { // std and third party stay as given
			i = module + "/" + i
		}
		p.Imports = append(p.Imports, i)
	}
	p.Deps = p.Imports
	return p
}

// TestViolations checks the matcher itself on fake import lists, so
// TestImportArrows cannot pass just because the matcher never fires.
func TestViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		pkgs []pkg
		want []string // substrings, one per expected violation
	}{
		{"structs alone", []pkg{fake("internal/structs", "fmt", "github.com/google/uuid")}, nil},
		{"structs own subpackage", []pkg{fake("internal/structs", "internal/structs/sub")}, nil},
		{"structs imports state", []pkg{fake("internal/structs", "internal/state")},
			[]string{"internal/structs imports " + module + "/internal/state"}},
		{"state imports structs", []pkg{fake("internal/state", "internal/structs")}, nil},
		{"agent imports state", []pkg{fake("internal/agent", "internal/server", "internal/state")},
			[]string{"internal/agent imports " + module + "/internal/state"}},
		{"agent reaches state through server", []pkg{withDeps(fake("internal/agent", "internal/server"), "internal/state")}, nil},
		{"state imports fsm", []pkg{fake("internal/state", "internal/structs", "internal/fsm")}, []string{"internal/fsm"}},
		{"fsm imports state", []pkg{fake("internal/fsm", "internal/state", "internal/structs")}, nil},
		{"scheduler subpackage imports state", []pkg{fake("internal/scheduler/feasible", "internal/state")},
			[]string{"internal/scheduler/feasible imports " + module + "/internal/state"}},
		{"schedulerx is not scheduler", []pkg{fake("internal/schedulerx", "internal/state")}, nil},
		{"client imports server", []pkg{fake("internal/client/driver", "internal/server/broker")}, []string{"internal/server/broker"}},
		{"client imports agent config", []pkg{fake("internal/client", "internal/agent/config")}, nil},
		{"command imports jobspec and api", []pkg{fake("internal/command", "internal/jobspec", "github.com/hashicorp/nomad/api")}, nil},
		{"command imports structs", []pkg{fake("internal/command/job", "internal/structs")}, []string{"internal/structs"}},
		{"jobspec imports structs", []pkg{fake("internal/jobspec", "internal/structs")}, []string{"internal/structs"}},
		{"server imports client", []pkg{fake("internal/server", "internal/client")}, []string{"internal/client"}},
		{"internal imports cmd", []pkg{fake("internal/agent", "cmd/drover")}, []string{"cmd/drover"}},
		{"structs imports cmd breaks two rules", []pkg{fake("internal/structs", "cmd/drover")},
			[]string{"rule internal:", "rule internal/structs:"}},
		{"sim imports server", []pkg{fake("internal/sim", "internal/server", "internal/client")}, nil},
		{"sim imports command", []pkg{fake("internal/sim", "internal/command")}, []string{"internal/command"}},
		{"cmd may import anything", []pkg{fake("cmd/drover", "internal/command", "internal/server")}, nil},
		{"transitive violation shows chain", []pkg{
			withDeps(fake("internal/scheduler", "internal/helper"), "internal/state"),
			fake("internal/helper", "internal/state"),
		}, []string{
			"internal/scheduler imports " + module + "/internal/helper",
			"internal/scheduler depends on " + module + "/internal/state via " +
				module + "/internal/scheduler -> " + module + "/internal/helper -> " + module + "/internal/state",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := violations(tc.pkgs, rules)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d violations %q, want %d", len(got), got, len(tc.want))
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
					t.Errorf("no violation mentions %q in %q", w, got)
				}
			}
		})
	}
}

func withDeps(p pkg, deps ...string) pkg {
	for _, d := range deps {
		p.Deps = append(p.Deps, module+"/"+d)
	}
	return p
}

// TestEveryRuleBites makes sure no rule in the table is a no-op: for each
// one, a package it governs importing a target it rejects must be reported.
func TestEveryRuleBites(t *testing.T) {
	for _, r := range rules {
		targets := r.policy.prefixes
		if r.policy.allow {
			targets = []string{"internal/zz_not_allowed"}
		}
		for _, target := range targets {
			got := violations([]pkg{fake(r.pkg+"/probe", target+"/x")}, []rule{r})
			if len(got) != 1 {
				t.Errorf("rule %s: import of %s gave %q, want one violation", r.pkg, target, got)
			}
		}
	}
}

func TestUnder(t *testing.T) {
	for _, tc := range []struct {
		path, prefix string
		want         bool
	}{
		{"internal/state", "internal/state", true},
		{"internal/state/x", "internal/state", true},
		{"internal/statex", "internal/state", false},
		{"internal", "internal/state", false},
	} {
		if got := under(tc.path, tc.prefix); got != tc.want {
			t.Errorf("under(%q, %q) = %v", tc.path, tc.prefix, got)
		}
	}
}
