package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// schemaKeys walks the decoder's file types by reflection and returns
// every key path they decode, with whether it is a block.
func schemaKeys(t reflect.Type, prefix string, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("hcl")
		name, kind, _ := strings.Cut(tag, ",")
		if name == "" || kind == "label" || kind == "remain" {
			continue
		}
		path := joinPath(prefix, name)
		out[path] = kind == "block"
		if kind == "block" {
			schemaKeys(t.Field(i).Type, path, out)
		}
	}
}

// TestKeys_SchemaKeysAreInTheTable fails when the decoder takes a key the
// table does not list as honoured, or the table lists an honoured key the
// decoder does not take: a new field can never be decoded and dropped, or
// promised and missing.
func TestKeys_SchemaKeysAreInTheTable(t *testing.T) {
	schema := map[string]bool{}
	schemaKeys(reflect.TypeOf(fileConfig{}), "", schema)
	if len(schema) < 50 {
		t.Fatalf("schema walk found only %d keys", len(schema))
	}
	for path, block := range schema {
		k, ok := LookupKey(path)
		switch {
		case !ok:
			t.Errorf("%s is decoded but in no state: add it to keyTable", path)
		case k.State != Honoured:
			t.Errorf("%s is decoded but the table says %s", path, k.State)
		case k.Block != block:
			t.Errorf("%s: table says block=%v, the decoder block=%v", path, k.Block, block)
		}
	}
	seen := map[string]bool{}
	for _, k := range keyTable {
		if seen[k.Path] {
			t.Errorf("%s is in the table twice", k.Path)
		}
		seen[k.Path] = true
		switch k.State {
		case Honoured:
			if _, ok := schema[k.Path]; !ok && !strings.HasPrefix(k.Path, "plugin.config") {
				t.Errorf("%s is honoured in the table but nothing decodes it", k.Path)
			}
		case Refused, Warned:
			if k.Why == "" {
				t.Errorf("%s (%s) says nothing about why", k.Path, k.State)
			}
			if _, ok := schema[k.Path]; ok {
				t.Errorf("%s is %s in the table, yet decoded", k.Path, k.State)
			}
		default:
			t.Errorf("%s: state %q is none of honoured, refused, warned", k.Path, k.State)
		}
		if parent, _ := splitPath(k.Path); parent != "" {
			if p, ok := LookupKey(parent); !ok || !p.Block || p.State != Honoured {
				t.Errorf("%s: its parent %s is not an honoured block in the table", k.Path, parent)
			}
		}
	}
}

// TestKeys_HonouredKeysNameATest checks that every honoured key names a
// test function that exists in the repository.
func TestKeys_HonouredKeysNameATest(t *testing.T) {
	tests := map[string]bool{}
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	root := filepath.Join("..", "..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, "_test.go") {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range re.FindAllSubmatch(src, -1) {
				tests[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keyTable {
		if k.State != Honoured {
			continue
		}
		if k.Test == "" || !tests[k.Test] {
			t.Errorf("%s names test %q, which does not exist", k.Path, k.Test)
		}
	}
}

// errKey pulls the key path out of one "file:line:col: path: Drover does
// not support this key" line.
var errKey = regexp.MustCompile(`^[^:]+:\d+:\d+: ([a-z0-9_.]+): Drover does not support this key`)

// TestKeys_EveryNomadKeyLoadsOrIsRefusedOnce loads a Nomad agent config
// that sets every documented key: each honoured key loads, each refused
// key is exactly one error naming it (file:line:col), each warned key one
// warning, and nothing else goes wrong.
func TestKeys_EveryNomadKeyLoadsOrIsRefusedOnce(t *testing.T) {
	const file = "testdata/nomad-every-key.hcl"
	_, err := Load(file)
	if err == nil {
		t.Fatal("the file sets refused keys: Load must fail")
	}
	refusedSeen := map[string]int{}
	for _, line := range strings.Split(err.Error(), "\n") {
		m := errKey.FindStringSubmatch(line)
		if m == nil || !strings.HasPrefix(line, file+":") {
			t.Errorf("error is not one refused key at file:line:col: %q", line)
			continue
		}
		refusedSeen[m[1]]++
	}
	// The file with its refused keys removed loads, warning once per warned key.
	src, _ := os.ReadFile(file)
	lines := strings.Split(string(src), "\n")
	errLines := map[int]bool{}
	lineOf := regexp.MustCompile(`^[^:]+:(\d+):`)
	for _, line := range strings.Split(err.Error(), "\n") {
		if m := lineOf.FindStringSubmatch(line); m != nil {
			n := 0
			for _, c := range m[1] {
				n = n*10 + int(c-'0')
			}
			errLines[n] = true
		}
	}
	var kept []string
	for i := 0; i < len(lines); i++ {
		if !errLines[i+1] {
			kept = append(kept, lines[i])
			continue
		}
		// Drop the key's line, and the whole block when it opens one.
		if strings.HasSuffix(strings.TrimSpace(lines[i]), "{") {
			depth := 1
			for depth > 0 && i+1 < len(lines) {
				i++
				depth += strings.Count(lines[i], "{") - strings.Count(lines[i], "}")
			}
		}
	}
	c, err := LoadBytes("kept.hcl", []byte(strings.Join(kept, "\n")))
	if err != nil {
		t.Fatalf("without its refused keys the file must load: %v", err)
	}
	warnedSeen := map[string]int{}
	for _, w := range c.Warnings {
		_, rest, _ := strings.Cut(w, ": ")
		path, _, _ := strings.Cut(rest, " is ignored")
		warnedSeen[path]++
	}
	for _, k := range keyTable {
		if k.Drover {
			continue
		}
		switch k.State {
		case Refused:
			if n := refusedSeen[k.Path]; n != 1 && !insideRefused(k.Path) {
				t.Errorf("refused key %s: %d errors, want 1 (is it in %s?)", k.Path, n, file)
			}
		case Warned:
			if n := warnedSeen[k.Path]; n != 1 {
				t.Errorf("warned key %s: %d warnings, want 1 (is it in %s?)", k.Path, n, file)
			}
		case Honoured:
			if refusedSeen[k.Path] > 0 {
				t.Errorf("honoured key %s was refused", k.Path)
			}
		}
	}
	for path, n := range refusedSeen {
		if k, ok := LookupKey(path); !ok || k.State != Refused {
			t.Errorf("%s was refused %d times but the table says %+v", path, n, k)
		}
	}
	if c.Telemetry.StatsdAddress != "127.0.0.1:8125" || c.Client.GC.MaxAllocs != 40 || c.Client.Meta["owner.id"] != "team-a" ||
		c.Region != "eu" || len(c.Client.HostNetworks) != 2 || c.Server.DefaultSchedulerConfig == nil {
		t.Errorf("honoured keys did not load: %+v", c)
	}
}

// insideRefused says whether a key sits in a block that is itself
// refused (the block's one error covers it).
func insideRefused(path string) bool {
	for p, _ := splitPath(path); p != ""; p, _ = splitPath(p) {
		if k, ok := LookupKey(p); ok && k.State != Honoured {
			return true
		}
	}
	return false
}

func TestKeys_UnknownKeyIsRefusedWithASuggestion(t *testing.T) {
	_, err := LoadBytes("typo.hcl", []byte("client {\n  gc_max_alocs = 3\n  bogus_thing = 1\n}\ntelemetry {\n  statsd_adress = \"x:1\"\n}\n"))
	if err == nil {
		t.Fatal("want errors")
	}
	want := []string{
		`typo.hcl:2:3: client.gc_max_alocs: Drover does not support this key; it is not a Nomad agent configuration key either; did you mean "gc_max_allocs"?`,
		`typo.hcl:3:3: client.bogus_thing: Drover does not support this key`,
		`typo.hcl:6:3: telemetry.statsd_adress: Drover does not support this key; it is not a Nomad agent configuration key either; did you mean "statsd_address"?`,
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), err)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}

func TestKeys_JSONRefusedAndWarned(t *testing.T) {
	src := "{\n  \"plugin_dir\": \"/x\",\n  \"ui\": {\"enabled\": true},\n  \"server\": {\"enabled\": true, \"raft_trailing_logs\": 3}\n}\n"
	_, err := LoadBytes("c.json", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "c.json:2:3: plugin_dir: Drover does not support this key") ||
		!strings.Contains(err.Error(), "c.json:4:31: server.raft_trailing_logs: Drover does not support this key") {
		t.Fatalf("err = %v", err)
	}
	c, err := LoadBytes("c.json", []byte("{\"ui\": {\"enabled\": false, \"label\": {\"text\": \"prod\"}}}"))
	if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "ui.label is ignored") || c.UIEnabled {
		t.Fatalf("warnings %q, err %v", c.Warnings, err)
	}
}

func TestLoad_HCL1Forms(t *testing.T) {
	c, err := LoadBytes("h1.hcl", []byte(`"region" = "eu"
server {
  retry_join     = ["10.0.0.9"]
  retry_interval = "7s"
  retry_max      = 4
}
client {
  "enabled" = true
  meta {
    "rack"     = "r1"
    "owner.id" = "x"
  }
  options {
    "driver.raw_exec.enable" = "1"
  }
}
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Region != "eu" || !c.Client.Enabled || c.Client.Meta["owner.id"] != "x" || c.Client.Meta["rack"] != "r1" ||
		c.Client.Options["driver.raw_exec.enable"] != "1" ||
		len(c.Server.ServerJoin.RetryJoin) != 1 || c.Server.ServerJoin.RetryInterval != 7*time.Second || c.Server.ServerJoin.RetryMax != 4 {
		t.Fatalf("decoded %+v", c)
	}
	// Positions survive the rewrite.
	_, err = LoadBytes("h1.hcl", []byte("\"region\" = \"eu\"\n\"bogus\" = 1\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "h1.hcl:2:2: bogus:") {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentConfigReference_IsCurrent(t *testing.T) {
	const path = "../../../docs/reference/agent-config.md"
	want := RenderReference()
	if os.Getenv("DROVER_UPDATE_DOCS") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("%s is stale or missing: run DROVER_UPDATE_DOCS=1 go test -run TestAgentConfigReference_IsCurrent ./internal/agent/config/", path)
	}
	_ = sort.Strings
}

func TestLoad_ClientServerJoin(t *testing.T) {
	c, err := Load(write(t, "c.hcl", "data_dir = \"/d\"\nclient {\n  enabled = true\n  servers = [\"10.0.0.1:4647\"]\n  server_join {\n    retry_join = [\"10.0.0.2\", \"10.0.0.3:5647\"]\n  }\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Client.Servers, ","); got != "10.0.0.1:4647,10.0.0.2,10.0.0.3:5647" {
		t.Fatalf("servers %s", got)
	}
	c.Client.Servers = append(c.Client.Servers, "provider=aws tag_key=nomad")
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "go-discover") {
		t.Fatalf("cloud auto-join must be refused: %v", err)
	}
}
