package fields

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestEveryFieldHasARow walks api.Job by reflection: every exported field
// of every struct type reachable without crossing a refused or warned row
// must have a row, so a field a new client version adds cannot be
// dropped unnoticed.
func TestEveryFieldHasARow(t *testing.T) {
	var missing []string
	n := 0
	for _, ta := range Types() {
		for i := range ta.Type.NumField() {
			f := ta.Type.Field(i)
			if !f.IsExported() {
				continue
			}
			n++
			if Lookup(ta.Type.Name()+"."+f.Name) == nil {
				missing = append(missing, ta.Type.Name()+"."+f.Name+" (first at "+strings.TrimPrefix(ta.Path+"."+f.Name, ".")+")")
			}
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%d api.Job fields are in none of the three states; add a row for each:\n  %s", len(missing), strings.Join(missing, "\n  "))
	}
	if n < 200 {
		t.Fatalf("only %d fields walked: the walk is broken", n)
	}
}

// TestEveryRowNamesAField fails on a row whose type or field no longer
// exists in the job tree (renamed or removed by a new client version), or
// that sits beneath a refused or warned row (unreachable, so misleading).
func TestEveryRowNamesAField(t *testing.T) {
	types := map[string]reflect.Type{}
	for _, ta := range Types() {
		types[ta.Type.Name()] = ta.Type
	}
	for _, r := range Rows() {
		typ, field, _ := strings.Cut(r.Key, ".")
		st, ok := types[typ]
		if !ok {
			t.Errorf("row %s: no type %s in api.Job's tree (or only beneath a refused or warned field)", r.Key, typ)
			continue
		}
		if _, ok := st.FieldByName(field); !ok {
			t.Errorf("row %s: api.%s has no field %s", r.Key, typ, field)
		}
		switch r.State {
		case Honoured:
			if r.Proof == "" {
				t.Errorf("row %s: honoured without the test that proves it", r.Key)
			}
			if r.Allow != nil && r.Message == "" {
				t.Errorf("row %s: honours some values but says nothing about the others", r.Key)
			}
		case Refused, Warned:
			if r.Message == "" {
				t.Errorf("row %s: %s without a message", r.Key, r.State)
			}
		default:
			t.Errorf("row %s: no state", r.Key)
		}
	}
}

// TestHonouredRowsNameATest: each proof is a test function of the
// repository.
func TestHonouredRowsNameATest(t *testing.T) {
	root := repoRoot(t)
	defined := map[string]bool{}
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			defined[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Rows() {
		if r.Proof != "" && !defined[r.Proof] {
			t.Errorf("row %s: proof %s is not a test in the repository", r.Key, r.Proof)
		}
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

func ptr[T any](v T) *T { return &v }

func checkJob() *api.Job {
	job := api.NewServiceJob("web", "web", "global", 50)
	tg := api.NewTaskGroup("g", 1)
	task := api.NewTask("t", "raw_exec")
	task.Config = map[string]any{"command": "/bin/true"}
	tg.AddTask(task)
	tg.Services = []*api.Service{{Name: "web", Provider: "nomad", Checks: []api.ServiceCheck{{Name: "c", Type: "tcp", Interval: time.Second}}}}
	job.AddTaskGroup(tg)
	return job
}

// TestCheck lists what a job sets that is refused or warned, by path, and
// nothing for honoured fields, zero values or allowed values.
func TestCheck(t *testing.T) {
	cases := []struct {
		name           string
		mutate         func(j *api.Job)
		refused, warns []string
	}{
		{"plain job", func(*api.Job) {}, nil, nil},
		{"zero values of refused fields", func(j *api.Job) {
			j.TaskGroups[0].EphemeralDisk = &api.EphemeralDisk{Sticky: ptr(false), Migrate: ptr(false), SizeMB: ptr(300)}
		}, nil, nil},
		{"sticky and migrate disk and template delimiters honoured", func(j *api.Job) {
			j.TaskGroups[0].EphemeralDisk = &api.EphemeralDisk{Sticky: ptr(true), Migrate: ptr(true)}
			j.TaskGroups[0].Tasks[0].Templates = []*api.Template{{EmbeddedTmpl: ptr("x"), LeftDelim: ptr("[["), RightDelim: ptr("]]")}}
		}, nil, nil},
		{"bridge and host networks, a port on a named host network", func(j *api.Job) {
			j.TaskGroups[0].Networks = []*api.NetworkResource{{Mode: "bridge"}, {Mode: "host", DynamicPorts: []api.Port{{Label: "x", HostNetwork: "public"}}}}
		}, nil, nil},
		{"consul provider and unset provider", func(j *api.Job) {
			j.TaskGroups[0].Services = append(j.TaskGroups[0].Services, &api.Service{Name: "a", Provider: "consul"}, &api.Service{Name: "b"})
		}, []string{"TaskGroups[0].Services[1].Provider", "TaskGroups[0].Services[2].Provider"}, nil},
		{"check header and devices honoured, vault subtree refused once", func(j *api.Job) {
			j.TaskGroups[0].Services[0].Checks[0].Header = map[string][]string{"X": {"y"}}
			j.TaskGroups[0].Tasks[0].Resources = &api.Resources{CPU: ptr(100), Devices: []*api.RequestedDevice{{Name: "nvidia/gpu"}}}
			j.TaskGroups[0].Tasks[0].Vault = &api.Vault{Policies: []string{"p"}, Role: "r"}
		}, []string{"TaskGroups[0].Tasks[0].Vault"}, nil},
		{"ui warned", func(j *api.Job) {
			j.UI = &api.JobUIConfig{Description: "d"}
		}, nil, []string{"UI"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := checkJob()
			tc.mutate(job)
			refused, warned := Check(job)
			if got := paths(refused); !sameSet(got, tc.refused) {
				t.Errorf("refused = %v, want %v", got, tc.refused)
			}
			if got := paths(warned); !sameSet(got, tc.warns) {
				t.Errorf("warned = %v, want %v", got, tc.warns)
			}
			for _, f := range refused {
				if f.Message == "" || len(f.Blocks) == 0 {
					t.Errorf("%s: message %q, %d enclosing addresses", f.Path, f.Message, len(f.Blocks))
				}
			}
		})
	}
}

func paths(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

var update = flag.Bool("update", false, "rewrite docs/reference/jobspec.md")

// TestReferenceDocIsCurrent fails when docs/reference/jobspec.md is not
// what the table generates; -update rewrites it.
func TestReferenceDocIsCurrent(t *testing.T) {
	path := filepath.Join(repoRoot(t), "docs", "reference", "jobspec.md")
	want := ReferenceMarkdown()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/jobspec/fields -run TestReferenceDocIsCurrent -update writes it)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: go test ./internal/jobspec/fields -run TestReferenceDocIsCurrent -update", path)
	}
}
