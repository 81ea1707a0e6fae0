package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// The docs' commands cannot rot: every fenced block of docs/*.md whose
// info string says `runnable` is run, in order, against a real agent, and
// every block with `file=NAME` is written to NAME first. A runnable block
// holds drover commands, one a line, run in-process with cmd/drover's
// dispatcher in a scratch directory; `export K=V` sets a variable, `$K`
// and "${K}" expand, `> FILE` writes stdout to a file. A comment after a
// command may say `exit N` (the exit code expected, 0 otherwise) or
// `eventually` (retried until it succeeds, for output that arrives a
// moment later).

// docBlock is one fenced block.
type docBlock struct {
	info string // the fence's info string: "sh runnable", "hcl file=x.hcl"
	body string
	line int
}

func (b docBlock) runnable() bool { return containsWord(b.info, "runnable") }

func (b docBlock) file() string {
	for _, w := range strings.Fields(b.info) {
		if f, ok := strings.CutPrefix(w, "file="); ok {
			return f
		}
	}
	return ""
}

func containsWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// docBlocks splits markdown into its fenced blocks (fences may be
// indented, inside list items; the indentation is removed).
func docBlocks(md string) []docBlock {
	var out []docBlock
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(trimmed, "```") {
			continue
		}
		indent := len(lines[i]) - len(trimmed)
		b := docBlock{info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: i + 1}
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			l := lines[i]
			if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
				l = l[indent:]
			}
			body = append(body, l)
		}
		b.body = strings.Join(body, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

// shellWords splits a command line as sh would for the forms the docs
// use: words, '...' and "..." quoting, $VAR and ${VAR} expansion (not in
// single quotes), and a trailing comment, returned apart.
func shellWords(line string, vars map[string]string) (words []string, comment string, err error) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	expand := func(s string, i int) (string, int) { // s[i] == '$'
		j := i + 1
		braced := j < len(s) && s[j] == '{'
		if braced {
			j++
		}
		k := j
		for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || s[k] >= '0' && s[k] <= '9') {
			k++
		}
		name := s[j:k]
		if braced && k < len(s) && s[k] == '}' {
			k++
		}
		return vars[name], k
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '#' && !inWord:
			return words, strings.TrimSpace(line[i+1:]), nil
		case c == ' ' || c == '\t':
			flush()
			i++
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, "", fmt.Errorf("unclosed ' in %q", line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+j+2
		case c == '"':
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '$' {
					v, next := expand(line, i)
					cur.WriteString(v)
					i = next
					continue
				}
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				cur.WriteByte(line[i])
				i++
			}
			if i >= len(line) {
				return nil, "", fmt.Errorf("unclosed \" in %q", line)
			}
			inWord, i = true, i+1
		case c == '$':
			v, next := expand(line, i)
			cur.WriteString(v)
			inWord, i = true, next
		default:
			cur.WriteByte(c)
			inWord, i = true, i+1
		}
	}
	flush()
	return words, "", nil
}

func TestShellWords(t *testing.T) {
	vars := map[string]string{"A": "http://x:1", "B": "b"}
	for _, c := range []struct {
		line, comment string
		want          []string
	}{
		{`drover job run x.hcl`, "", []string{"drover", "job", "run", "x.hcl"}},
		{`drover x -address "$A" y   # exit 1`, "exit 1", []string{"drover", "x", "-address", "http://x:1", "y"}},
		{`drover a '{{ .ID }}' ${B}c > f.json`, "", []string{"drover", "a", "{{ .ID }}", "bc", ">", "f.json"}},
		{`export T=abc`, "", []string{"export", "T=abc"}},
	} {
		got, comment, err := shellWords(c.line, vars)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) || comment != c.comment {
			t.Errorf("%q: %q %q %v", c.line, got, comment, err)
		}
	}
}

// docSetups start what each doc's runnable blocks run against and return
// the variables they see (DROVER_ADDR at least).
var docSetups = map[string]func(t *testing.T) map[string]string{
	"getting-started.md": func(t *testing.T) map[string]string {
		return map[string]string{"DROVER_ADDR": "http://" + docAgent(t, false).HTTPAddr()}
	},
	"operations.md": func(t *testing.T) map[string]string {
		return map[string]string{"DROVER_ADDR": "http://" + docAgent(t, true).HTTPAddr()}
	},
	// The Nomad cluster of the migration is a second agent holding a
	// job, a variable and an ACL policy; both have ACLs on, bootstrapped
	// with one management secret (DROVER_TOKEN).
	"moving-from-nomad.md": func(t *testing.T) map[string]string {
		const secret = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
		source, target := docAgent(t, true), docAgent(t, true)
		for _, a := range []*agent.Agent{source, target} {
			if _, _, err := agenttest.Client(t, a).ACLTokens().BootstrapOpts(secret, nil); err != nil {
				t.Fatal(err)
			}
		}
		cl := agenttest.Client(t, source)
		cl.SetSecretID(secret)
		job := api.NewServiceJob("hello", "hello", "global", 50)
		job.Datacenters = []string{"*"}
		task := api.NewTask("say", "raw_exec")
		task.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", "echo hello; exec sleep 3600"}}
		task.Require(&api.Resources{CPU: new(50), MemoryMB: new(32)})
		job.AddTaskGroup(api.NewTaskGroup("app", 1).AddTask(task))
		if _, _, err := cl.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
		if _, _, err := cl.Variables().Create(&api.Variable{Path: "nomad/jobs/hello", Items: api.VariableItems{"greeting": "hi"}}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.ACLPolicies().Upsert(&api.ACLPolicy{Name: "readonly", Description: "read all",
			Rules: "namespace \"*\" {\n  policy = \"read\"\n}\n"}, nil); err != nil {
			t.Fatal(err)
		}
		return map[string]string{"DROVER_ADDR": "http://" + target.HTTPAddr(), "NOMAD_SOURCE": "http://" + source.HTTPAddr(),
			"DROVER_TOKEN": secret}
	},
}

// docAgent is `drover agent -dev` in-process (a server and a client with
// raw_exec), with ACLs on when asked.
func docAgent(t *testing.T, acl bool) *agent.Agent {
	a := agenttest.Start(t, nil, func(cfg *config.Config) {
		cfg.Client.Enabled = true
		cfg.DataDir = testutil.DataDir(t)
		cfg.ACL.Enabled = acl
	})
	return a
}

// TestDocs_RunnableBlocks runs the runnable blocks of every page in docs/.
func TestDocs_RunnableBlocks(t *testing.T) {
	pages, _ := filepath.Glob("../../docs/*.md")
	ran := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		blocks := docBlocks(string(b))
		hasRunnable := false
		for _, bl := range blocks {
			hasRunnable = hasRunnable || bl.runnable()
		}
		if !hasRunnable {
			continue
		}
		name := filepath.Base(page)
		setup, ok := docSetups[name]
		if !ok {
			t.Errorf("%s has runnable blocks but no setup in docSetups", name)
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) { runDoc(t, name, blocks, setup(t)) })
	}
	if ran < 3 {
		t.Errorf("ran the blocks of %d pages, want getting-started, operations and moving-from-nomad", ran)
	}
}

func runDoc(t *testing.T, page string, blocks []docBlock, vars map[string]string) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("DROVER_TOKEN", "")
	for k, v := range vars {
		t.Setenv(k, v)
	}
	for _, b := range blocks {
		if f := b.file(); f != "" {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(b.body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	commands := 0
	for _, b := range blocks {
		if !b.runnable() {
			continue
		}
		for n, line := range strings.Split(b.body, "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			where := fmt.Sprintf("%s:%d", page, b.line+1+n)
			runDocLine(t, where, line, vars)
			commands++
		}
	}
	t.Logf("%s: %d commands ran", page, commands)
}

func runDocLine(t *testing.T, where, line string, vars map[string]string) {
	t.Helper()
	words, comment, err := shellWords(line, vars)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if words[0] == "export" {
		for _, kv := range words[1:] {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
			t.Setenv(k, v)
		}
		return
	}
	if words[0] != "drover" {
		t.Fatalf("%s: a runnable line must be a drover command or export: %q", where, line)
	}
	args, outFile := words[1:], ""
	if i := indexOf(args, ">"); i >= 0 {
		if i != len(args)-2 {
			t.Fatalf("%s: > must be followed by one file name at the end", where)
		}
		args, outFile = args[:i], args[i+1]
	}
	wantCode := 0
	if rest, ok := strings.CutPrefix(comment, "exit "); ok {
		if wantCode, err = strconv.Atoi(strings.Fields(rest)[0]); err != nil {
			t.Fatalf("%s: bad exit comment %q", where, comment)
		}
	}
	var out, errb bytes.Buffer
	attempt := func() bool {
		out.Reset()
		errb.Reset()
		return run(args, &out, &errb) == wantCode
	}
	if strings.HasPrefix(comment, "eventually") {
		testutil.WaitFor(t, 30*time.Second, where+": "+line, func() (bool, string) {
			return attempt(), out.String() + errb.String()
		})
	} else if !attempt() {
		t.Fatalf("%s: %s: want exit %d\nstdout:\n%s\nstderr:\n%s", where, line, wantCode, out.String(), errb.String())
	}
	if outFile != "" {
		if err := os.WriteFile(outFile, out.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}
