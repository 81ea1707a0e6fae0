package command

import (
	"archive/tar"
	"compress/gzip"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// chdir runs the test in a fresh directory (commands that write files
// write them in the working directory, as Nomad's do).
func chdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	return dir
}

// TestTLSCreate_CAAndCertsVerify creates a CA, then a server, client and
// CLI certificate, and checks each chains to the CA with the names tls {}
// needs; a second create refuses to overwrite.
func TestTLSCreate_CAAndCertsVerify(t *testing.T) {
	chdir(t)
	r := run(t, "tls", "ca", "create")
	if r.code != 0 || !strings.Contains(r.stdout, "CA certificate saved to: nomad-agent-ca.pem") {
		t.Fatalf("ca create: %+v", r)
	}
	pool := x509.NewCertPool()
	caPEM, _ := os.ReadFile("nomad-agent-ca.pem")
	pool.AppendCertsFromPEM(caPEM)
	for _, c := range []struct{ flag, file, name string }{
		{"-server", "global-server-nomad.pem", "server.global.nomad"},
		{"-client", "global-client-nomad.pem", "client.global.nomad"},
		{"-cli", "global-cli-nomad.pem", "cli.global.nomad"},
	} {
		if r := run(t, "tls", "cert", "create", c.flag); r.code != 0 || !strings.Contains(r.stdout, c.file) {
			t.Fatalf("cert create %s: %+v", c.flag, r)
		}
		b, _ := os.ReadFile(c.file)
		blk, _ := pem.Decode(b)
		cert, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: c.name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
			t.Errorf("%s does not verify for %s: %v", c.file, c.name, err)
		}
		if _, err := os.Stat(strings.TrimSuffix(c.file, ".pem") + "-key.pem"); err != nil {
			t.Errorf("no key for %s: %v", c.file, err)
		}
	}
	if r := run(t, "tls", "ca", "create"); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("second ca create: %+v", r)
	}
	if r := run(t, "tls", "cert", "info", "global-server-nomad.pem"); r.code != 0 || !strings.Contains(r.stdout, "server.global.nomad") {
		t.Errorf("cert info: %+v", r)
	}
	if r := run(t, "tls", "cert", "create", "-server", "-client"); r.code != 1 {
		t.Errorf("two roles: %+v", r)
	}
}

// TestFmt_FormatsChecksAndRefusesBadHCL: fmt rewrites a file in place,
// -check exits 3 on an unformatted one, and a parse error names the spot.
func TestFmt_FormatsChecksAndRefusesBadHCL(t *testing.T) {
	dir := chdir(t)
	ugly := "job \"x\" {\ndatacenters=[\"dc1\"]\n  group \"g\" {\n count = 1\n }\n}\n"
	if err := os.WriteFile("x.nomad.hcl", []byte(ugly), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, "fmt", "-check", dir); r.code != 3 || !strings.Contains(r.stdout, "x.nomad.hcl") {
		t.Fatalf("fmt -check: %+v", r)
	}
	if b, _ := os.ReadFile("x.nomad.hcl"); string(b) != ugly {
		t.Fatal("fmt -check changed the file")
	}
	if r := run(t, "fmt", "x.nomad.hcl"); r.code != 0 {
		t.Fatalf("fmt: %+v", r)
	}
	b, _ := os.ReadFile("x.nomad.hcl")
	if !strings.Contains(string(b), "  datacenters = [\"dc1\"]\n") || !strings.Contains(string(b), "    count = 1\n") {
		t.Errorf("formatted:\n%s", b)
	}
	if r := run(t, "fmt", "-check", "x.nomad.hcl"); r.code != 0 {
		t.Errorf("fmt -check of a formatted file: %+v", r)
	}
	os.WriteFile("bad.hcl", []byte("job \"x\" {\n  count = \n"), 0o644)
	if r := run(t, "fmt", "bad.hcl"); r.code != 1 || !strings.Contains(r.stderr, "bad.hcl:") {
		t.Errorf("fmt of bad HCL: %+v", r)
	}
}

// TestInitCommands_WriteOnce: job init, node pool init and var init write
// their example once and refuse to overwrite it; the job example parses.
func TestInitCommands_WriteOnce(t *testing.T) {
	chdir(t)
	for _, c := range [][]string{{"job", "init"}, {"node", "pool", "init"}, {"var", "init"}} {
		if r := run(t, c...); r.code != 0 || !strings.Contains(r.stdout, "written to") {
			t.Errorf("%v: %+v", c, r)
		}
		if r := run(t, c...); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
			t.Errorf("%v again: %+v", c, r)
		}
	}
	b, _ := os.ReadFile("example.nomad.hcl")
	if _, err := formatHCL("example.nomad.hcl", b); err != nil {
		t.Errorf("job init's example does not parse: %v", err)
	}
	if _, err := parseNodePool("pool.nomad.hcl", mustRead(t, "pool.nomad.hcl"), false); err != nil {
		t.Errorf("node pool init's example does not parse: %v", err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEscapeReader_EndsOnEscapeDotAtLineStart(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls\n~.rest", "ls\n"},
		{"~.", ""},
		{"a~.b\n", "a~.b\n"},  // not at a line start
		{"x\n~~y", "x\n~y"},   // escape twice sends it once
		{"x\n~z", "x\n~z"},    // escape then anything else passes both
		{"x\r~.after", "x\r"}, // carriage return starts a line too
	} {
		b, _ := io.ReadAll(&escapeReader{r: strings.NewReader(c.in), esc: '~', lineStart: true})
		if string(b) != c.want {
			t.Errorf("%q: got %q, want %q", c.in, b, c.want)
		}
	}
}

func TestLastLinesAndBatchSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int64
		want string
	}{{"a\nb\nc\n", 2, "b\nc\n"}, {"a\nb\nc", 1, "c"}, {"a\n", 5, "a\n"}, {"", 3, ""}} {
		if got := string(lastLines([]byte(c.in), c.n)); got != c.want {
			t.Errorf("lastLines(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	for _, c := range []struct {
		in    string
		total int
		want  int
		bad   bool
	}{{"1", 5, 1, false}, {"50%", 5, 2, false}, {"1%", 5, 1, false}, {"0", 5, 0, true}, {"x", 5, 0, true}, {"101%", 5, 0, true}} {
		got, err := parseBatchSize(c.in, c.total)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseBatchSize(%q, %d) = %d, %v", c.in, c.total, got, err)
		}
	}
}

// TestParentJobStatus_PeriodicAndParameterized: job status of a periodic
// job shows its next launch and children; of a parameterized one its
// parameters and dispatched children.
func TestParentJobStatus_PeriodicAndParameterized(t *testing.T) {
	addr, cl := testAgent(t, nil)
	periodic, task := sleepingJob("nightly")
	periodic.Type = new("batch")
	periodic.Periodic = &api.PeriodicConfig{Spec: new("0 3 * * *"), SpecType: new("cron"), ProhibitOverlap: new(true)}
	periodic.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task))
	if _, _, err := cl.Jobs().Register(periodic, nil); err != nil {
		t.Fatal(err)
	}
	r := run(t, "job", "status", "-address", addr, "nightly")
	for _, want := range []string{"Periodic             = true", "Next Periodic Launch", "Children Job Summary", "Previously Launched Jobs"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("periodic status lacks %q: %+v", want, r)
		}
	}
	if r := run(t, "job", "periodic", "force", "-address", addr, "-detach", "nightly"); r.code != 0 {
		t.Fatalf("periodic force: %+v", r)
	}
	testutil.WaitFor(t, 10e9, "the launched child in job status", func() bool {
		return strings.Contains(run(t, "job", "status", "-address", addr, "nightly").stdout, "nightly/periodic-")
	})

	param, task2 := sleepingJob("render")
	param.Type = new("batch")
	param.ParameterizedJob = &api.ParameterizedJobConfig{Payload: "required", MetaRequired: []string{"input"}}
	param.AddTaskGroup(api.NewTaskGroup("g", 1).AddTask(task2))
	if _, _, err := cl.Jobs().Register(param, nil); err != nil {
		t.Fatal(err)
	}
	r = run(t, "job", "status", "-address", addr, "render")
	for _, want := range []string{"Parameterized Job", "Payload           = required", "Required Metadata = input", "Dispatched Jobs", "No dispatched jobs"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("parameterized status lacks %q: %+v", want, r)
		}
	}
}

// TestOperatorDebug_BundleHoldsTheClusterState: the archive is a tar.gz
// with the agent's self, members, metrics and the state summaries.
func TestOperatorDebug_BundleHoldsTheClusterState(t *testing.T) {
	addr, _ := testAgent(t, func(c *config.Config) { c.EnableDebug = true })
	dir := t.TempDir()
	r := run(t, "operator", "debug", "-address", addr, "-output", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "Created debug archive") {
		t.Fatalf("operator debug: %+v", r)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "nomad-debug-*.tar.gz"))
	if len(matches) != 1 {
		t.Fatalf("archives: %v", matches)
	}
	f, _ := os.Open(matches[0])
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int64{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		names[filepath.Base(h.Name)] = h.Size
	}
	for _, want := range []string{"agent-self.json", "agent-members.json", "nodes.json", "jobs.json", "0000.json", "0000.prom", "goroutine.prof", "raft-configuration.json", "errors.txt"} {
		if names[want] == 0 && want != "errors.txt" {
			t.Errorf("archive lacks %s (or it is empty): %v", want, names)
		}
	}
}

// TestSmallReadCommands runs agent-info, operator api, operator metrics,
// namespace inspect and the root keyring list against an agent.
func TestSmallReadCommands(t *testing.T) {
	addr, _ := testAgent(t, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"agent-info", "-address", addr}, "runtime"},
		{[]string{"operator", "api", "-address", addr, "/v1/namespaces"}, `"Name":"default"`},
		{[]string{"operator", "metrics", "-address", addr, "-format", "prometheus"}, "# TYPE"},
		{[]string{"namespace", "inspect", "-address", addr, "default"}, `"Name": "default"`},
		{[]string{"operator", "root", "keyring", "list", "-address", addr}, "active"},
		{[]string{"ui", "-address", addr, "-show-url"}, "/ui/"},
	} {
		if r := run(t, c.args...); r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("%v: %+v, want %q", c.args, r, c.want)
		}
	}
	if r := run(t, "operator", "api", "-address", addr, "/v1/job/nope"); r.code != 1 {
		t.Errorf("operator api of a 404: %+v", r)
	}
	if r := run(t, "volume", "status"); r.code != 1 || !strings.Contains(r.stderr, "no CSI") {
		t.Errorf("volume status: %+v", r)
	}
}
