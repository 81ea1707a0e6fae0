package taskrunner

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

func TestTemplates(t *testing.T) {
	seedDir := t.TempDir()
	seed := filepath.Join(seedDir, "app.tpl")
	if err := os.WriteFile(seed, []byte(`alloc={{ env "NOMAD_ALLOC_ID" }}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		task    structs.Task
		wantErr string
		checks  []func(t *testing.T, td drivers.TaskDir)
	}{
		{name: "env and file with perms", task: structs.Task{Env: map[string]string{"GREETING": "hello"}, Templates: []*structs.Template{
			{EmbeddedTmpl: "  from file  \n", DestPath: "local/in.txt"},
			{EmbeddedTmpl: `{{ env "GREETING" }} {{ env "NOMAD_TASK_NAME" }} {{ file "local/in.txt" | trimSpace | toUpper }}`,
				DestPath: "secrets/out.conf", Perms: "0600"},
		}}, checks: []func(*testing.T, drivers.TaskDir){
			fileIsT("secrets/out.conf", "hello web FROM FILE"), modeIs("secrets/out.conf", 0o600), modeIs("local/in.txt", 0o644)}},
		{name: "source from an artifact", task: structs.Task{
			Artifacts: []*structs.TaskArtifact{{GetterSource: seed, RelativeDest: "local/tpl"}},
			Templates: []*structs.Template{{SourcePath: "local/tpl/app.tpl", DestPath: "/local/${NOMAD_TASK_NAME}.conf"}},
		}, checks: []func(*testing.T, drivers.TaskDir){fileIsT("local/web.conf", "alloc=alloc-1")}},
		{name: "consul function", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: `{{ if false }}{{ key "ok/in/untaken/branch" }}{{ end }}{{ key "app/port" }}`, DestPath: "local/a"}}},
			wantErr: `template function "key" needs Consul, which is not available`},
		{name: "vault function", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: `{{ with secret "kv/x" }}{{ .Data }}{{ end }}`, DestPath: "local/a"}}},
			wantErr: `template function "secret" needs Vault`},
		{name: "unknown function", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: `{{ bogus }}`, DestPath: "local/a"}}},
			wantErr: `Template failed: template "local/a": parse: template: a:1: function "bogus" not defined`},
		{name: "destination escape", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: "x", DestPath: "../other/x"}}}, wantErr: `path "../other/x" escapes the task directory`},
		{name: "file escape", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: `{{ file "../../../../../../etc/hostname" }}`, DestPath: "local/a"}}}, wantErr: "escapes the task directory"},
		{name: "source escape", task: structs.Task{Templates: []*structs.Template{
			{SourcePath: "../../../../../../etc/hostname", DestPath: "local/a"}}}, wantErr: "escapes the task directory"},
		{name: "bad perms", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: "x", DestPath: "local/a", Perms: "rw"}}}, wantErr: `invalid perms "rw"`},
		{name: "no data", task: structs.Task{Templates: []*structs.Template{{DestPath: "local/a"}}}, wantErr: "needs data or a source"},
		{name: "malformed env file", task: structs.Task{Templates: []*structs.Template{
			{EmbeddedTmpl: "A=1\nnot a pair\n", DestPath: "local/env", Envvars: true}}}, wantErr: "env file line 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := tc.task
			r := runTask(t, &task, nil)
			checkOutcome(t, r, EventTemplateFailure, tc.wantErr)
			if tc.wantErr != "" && !strings.HasPrefix(r.failure().DisplayMessage, "Template failed: ") {
				t.Errorf("message %q", r.failure().DisplayMessage)
			}
			for _, c := range tc.checks {
				c(t, r.taskDir)
			}
		})
	}
}

func fileIsT(rel, want string) func(t *testing.T, td drivers.TaskDir) {
	return func(t *testing.T, td drivers.TaskDir) {
		t.Helper()
		if got := readFile(t, filepath.Join(td.Dir, rel)); got != want {
			t.Fatalf("%s = %q, want %q", rel, got, want)
		}
	}
}

// env = true puts the rendered variables in the task's environment, over
// its env block, and config interpolation sees them.
func TestTemplateEnvVars(t *testing.T) {
	task := &structs.Task{
		Env:    map[string]string{"MODE": "from-env-block"},
		Config: map[string]any{"run_for": "1ms", "signal_error": "db=${DB_HOST}"},
		Templates: []*structs.Template{{DestPath: "secrets/app.env", Envvars: true, EmbeddedTmpl: `# settings
DB_HOST={{ env "NOMAD_TASK_NAME" }}.db
export MODE="from \"template\""

QUOTED='a b'
`}},
	}
	r := runTask(t, task, nil)
	checkOutcome(t, r, "", "")
	env := r.started.Env
	for k, want := range map[string]string{"DB_HOST": "web.db", "MODE": `from "template"`, "QUOTED": "a b", "NOMAD_TASK_NAME": "web"} {
		if env[k] != want {
			t.Errorf("env %s = %q, want %q", k, env[k], want)
		}
	}
	if got := r.started.Config["signal_error"]; got != "db=web.db" {
		t.Errorf("config interpolation = %q", got)
	}
}

// Templates render once per task runner: a restart keeps the first
// render's variables without rendering again.
func TestPrestartRunsOnce(t *testing.T) {
	task := &structs.Task{Templates: []*structs.Template{{DestPath: "local/e", Envvars: true, EmbeddedTmpl: "X=1"}}}
	r := runTask(t, task, nil)
	checkOutcome(t, r, "", "")
	if err := os.Remove(filepath.Join(r.taskDir.Dir, "local/e")); err != nil {
		t.Fatal(err)
	}
	tr := &TaskRunner{cfg: Config{}, prestartState: prestartState{done: true, env: map[string]string{"X": "1"}}}
	env := map[string]string{}
	if _, err := tr.prestart(task, r.taskDir, env, nil); err != nil {
		t.Fatal(err)
	}
	if env["X"] != "1" {
		t.Fatalf("env = %v", env)
	}
	if _, err := os.Stat(filepath.Join(r.taskDir.Dir, "local/e")); err == nil {
		t.Fatal("rendered again")
	}
}

func TestTemplateFuncs(t *testing.T) {
	cases := []struct{ tmpl, want, wantErr string }{
		{`{{ "a,b,c" | split "," | join ";" }}`, "a;b;c", ""},
		{`{{ "a-b-c" | replaceAll "-" "+" }}`, "a+b+c", ""},
		{`{{ "Hello" | toUpper }} {{ "Hello" | toLower }}`, "HELLO hello", ""},
		{`{{ "foobar" | contains "oba" }} {{ "a,b" | split "," | contains "b" }} {{ "a,b" | split "," | contains "z" }}`, "true true false", ""},
		{`{{ "foobar" | hasPrefix "foo" }} {{ "foobar" | hasSuffix "foo" }}`, "true false", ""},
		{`{{ add1 }}`, "", `function "add1" not defined`},
		{`{{ parseInt "x" }}`, "", "invalid syntax"},
		{`{{ parseInt " 42 " }} {{ parseBool "true" }}`, "42 true", ""},
		{`{{ "a,b" | split "," | toJSON }}`, `["a","b"]`, ""},
		{`{{ "hi" | base64Encode }} {{ "aGk=" | base64Decode }}`, "aGk= hi", ""},
		{`{{ env "MISSING" }}|{{ env "K" }}`, "|v", ""},
	}
	for _, tc := range cases {
		t.Run(tc.tmpl, func(t *testing.T) {
			dir := t.TempDir()
			ip := NewInterpolator(nil, nil, "")
			r, err := renderTemplate(dir, &structs.Template{EmbeddedTmpl: tc.tmpl, DestPath: "out"}, map[string]string{"K": "v"}, ip, nil)
			if err == nil {
				err = r.write()
			}
			if tc.wantErr != "" || err != nil {
				if err == nil || tc.wantErr == "" || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, filepath.Join(dir, "out")); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseEnvFile(t *testing.T) {
	cases := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: "A=1\n\n# c\n  B = two words \nexport C=3\nD=\"x\\ny\"\nE='$F'\nG=\n", want: map[string]string{
			"A": "1", "B": "two words", "C": "3", "D": "x\ny", "E": "$F", "G": ""}},
		{in: "A=1\r\nB=2\r\n", want: map[string]string{"A": "1", "B": "2"}},
		{in: "NOEQUALS", wantErr: "line 1: want KEY=VALUE"},
		{in: "A=1\n1X=2", wantErr: "line 2"},
		{in: "BAD-KEY=1", wantErr: "want KEY=VALUE"},
		{in: `A="open`, wantErr: "unterminated quote"},
	}
	for _, tc := range cases {
		got, err := parseEnvFile([]byte(tc.in))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// file may follow a symlink inside the task dir, never one leading out.
func TestTemplateFileSymlinks(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup := func(td drivers.TaskDir) {
		if err := os.WriteFile(filepath.Join(td.LocalDir, "real"), []byte("inside"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("real", filepath.Join(td.LocalDir, "in")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(td.LocalDir, "out")); err != nil {
			t.Fatal(err)
		}
	}
	r := runTask(t, &structs.Task{Templates: []*structs.Template{{EmbeddedTmpl: `{{ file "local/in" }}`, DestPath: "local/a"}}}, setup)
	checkOutcome(t, r, "", "")
	fileIsT("local/a", "inside")(t, r.taskDir)
	r = runTask(t, &structs.Task{Templates: []*structs.Template{{EmbeddedTmpl: `{{ file "local/out/secret" }}`, DestPath: "local/a"}}}, setup)
	checkOutcome(t, r, EventTemplateFailure, `path "local/out/secret" escapes the task directory`)
}
