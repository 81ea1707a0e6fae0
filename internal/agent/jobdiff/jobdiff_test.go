package jobdiff

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// testJob is mock.Job "web" with a docker task "server" in group "app"
// of count 2, with meta, env, a service and a job update block, so diffs
// have something in each; mutate copies of it.
func testJob() *structs.Job {
	j := mock.Job("web")
	j.Meta = map[string]string{"owner": "ops"}
	j.Update.MaxParallel, j.Update.MinHealthyTime = 1, 10*time.Second
	tg := j.TaskGroups[0]
	tg.Name, tg.Count = "app", 2
	task := tg.Tasks[0]
	task.Name, task.Driver = "server", "docker"
	task.Config = map[string]any{
		"image": "nginx:1.25",
		"args":  []any{"-g", "daemon off;"},
		"auth":  map[string]any{"username": "bob"},
	}
	task.Env = map[string]string{"PORT": "8080"}
	task.Services = []*structs.Service{{Name: "web", PortLabel: "http", Tags: []string{"a"}}}
	j.Canonicalize()
	return j
}

// mutated returns a fresh test job changed by fn; a fresh build rather than
// a copy keeps the test independent of structs' Copy.
func mutated(fn func(j *structs.Job)) *structs.Job {
	j := testJob()
	fn(j)
	return j
}

func field(fs []*api.FieldDiff, name string) *api.FieldDiff {
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func object(os []*api.ObjectDiff, name string) *api.ObjectDiff {
	for _, o := range os {
		if o.Name == name {
			return o
		}
	}
	return nil
}

func objects(os []*api.ObjectDiff, name string) []*api.ObjectDiff {
	var out []*api.ObjectDiff
	for _, o := range os {
		if o.Name == name {
			out = append(out, o)
		}
	}
	return out
}

func group(d *api.JobDiff, name string) *api.TaskGroupDiff {
	for _, g := range d.TaskGroups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

func task(g *api.TaskGroupDiff, name string) *api.TaskDiff {
	for _, t := range g.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// wantField checks a FieldDiff's type and values.
func wantField(t *testing.T, fs []*api.FieldDiff, name, typ, old, new string) {
	t.Helper()
	f := field(fs, name)
	if f == nil {
		t.Fatalf("no field %q in %s", name, dump(fs))
	}
	if f.Type != typ || f.Old != old || f.New != new {
		t.Fatalf("field %q = %s %q -> %q, want %s %q -> %q", name, f.Type, f.Old, f.New, typ, old, new)
	}
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func TestDiff(t *testing.T) {
	cases := []struct {
		name  string
		old   *structs.Job
		new   *structs.Job
		ctx   bool
		check func(t *testing.T, d *api.JobDiff)
	}{
		{
			name: "new job is Added with all its fields",
			old:  nil, new: testJob(),
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeAdded || d.ID != "web" {
					t.Fatalf("got %s %q", d.Type, d.ID)
				}
				wantField(t, d.Fields, "Priority", TypeAdded, "", "50")
				wantField(t, d.Fields, "Type", TypeAdded, "", "service")
				wantField(t, d.Fields, "AllAtOnce", TypeAdded, "", "false")
				wantField(t, d.Fields, "Meta[owner]", TypeAdded, "", "ops")
				if field(d.Fields, "Version") != nil || field(d.Fields, "ID") != nil {
					t.Fatalf("server-managed fields leaked: %s", dump(d.Fields))
				}
				dc := object(d.Objects, "Datacenters")
				if dc == nil || dc.Type != TypeAdded {
					t.Fatalf("Datacenters: %s", dump(dc))
				}
				wantField(t, dc.Fields, "Datacenters", TypeAdded, "", "dc1")
				up := object(d.Objects, "Update")
				if up == nil || up.Type != TypeAdded {
					t.Fatalf("Update: %s", dump(up))
				}
				wantField(t, up.Fields, "MinHealthyTime", TypeAdded, "", "10000000000")
				g := group(d, "app")
				if g == nil || g.Type != TypeAdded {
					t.Fatalf("group: %s", dump(g))
				}
				wantField(t, g.Fields, "Count", TypeAdded, "", "2")
				tk := task(g, "server")
				if tk == nil || tk.Type != TypeAdded {
					t.Fatalf("task: %s", dump(tk))
				}
				wantField(t, tk.Fields, "Driver", TypeAdded, "", "docker")
				wantField(t, tk.Fields, "Env[PORT]", TypeAdded, "", "8080")
				cfg := object(tk.Objects, "Config")
				if cfg == nil || cfg.Type != TypeAdded {
					t.Fatalf("Config: %s", dump(cfg))
				}
				wantField(t, cfg.Fields, "image", TypeAdded, "", "nginx:1.25")
				wantField(t, cfg.Fields, "args[1]", TypeAdded, "", "daemon off;")
				wantField(t, cfg.Fields, "auth[username]", TypeAdded, "", "bob")
				if res := object(tk.Objects, "Resources"); res == nil || res.Type != TypeAdded {
					t.Fatalf("Resources: %s", dump(res))
				}
			},
		},
		{
			name: "deleted job",
			old:  testJob(), new: nil,
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeDeleted || d.ID != "web" {
					t.Fatalf("got %s %q", d.Type, d.ID)
				}
				wantField(t, d.Fields, "Priority", TypeDeleted, "50", "")
				if g := group(d, "app"); g == nil || g.Type != TypeDeleted {
					t.Fatalf("group: %s", dump(g))
				}
			},
		},
		{
			name: "identical jobs are None and list unchanged groups",
			old:  testJob(), new: testJob(),
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeNone || len(d.Fields) != 0 || len(d.Objects) != 0 {
					t.Fatalf("got %s", dump(d))
				}
				g := group(d, "app")
				if g == nil || g.Type != TypeNone || task(g, "server").Type != TypeNone {
					t.Fatalf("group: %s", dump(g))
				}
			},
		},
		{
			name: "identical jobs, contextual: still None, no context to show",
			old:  testJob(), new: testJob(), ctx: true,
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeNone || len(d.Fields) != 0 || len(d.Objects) != 0 {
					t.Fatalf("got %s", dump(d))
				}
			},
		},
		{
			name: "server-managed fields are ignored",
			old:  testJob(),
			new: mutated(func(j *structs.Job) {
				j.Version, j.ModifyIndex, j.JobModifyIndex, j.CreateIndex = 7, 70, 70, 3
				j.Status, j.StatusDescription, j.Stable, j.SubmitTime = "running", "x", true, 99
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeNone {
					t.Fatalf("got %s", dump(d))
				}
			},
		},
		{
			name: "contextual shows unchanged fields inside an edited block",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.Update.MinHealthyTime = 30 * time.Second }),
			ctx:  true,
			check: func(t *testing.T, d *api.JobDiff) {
				up := object(d.Objects, "Update")
				if d.Type != TypeEdited || up == nil || up.Type != TypeEdited {
					t.Fatalf("got %s", dump(d))
				}
				wantField(t, up.Fields, "MinHealthyTime", TypeEdited, "10000000000", "30000000000")
				wantField(t, up.Fields, "MaxParallel", TypeNone, "1", "1")
				if field(d.Fields, "Priority") != nil {
					t.Fatalf("job-level fields are never contextual: %s", dump(d.Fields))
				}
			},
		},
		{
			name: "an action's command edited, another added: paired by name",
			old: mutated(func(j *structs.Job) {
				j.TaskGroups[0].Tasks[0].Actions = []*structs.Action{{Name: "dump", Command: "cat"}}
			}),
			new: mutated(func(j *structs.Job) {
				j.TaskGroups[0].Tasks[0].Actions = []*structs.Action{{Name: "dump", Command: "tac"}, {Name: "now", Command: "date"}}
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				acts := objects(task(group(d, "app"), "server").Objects, "Action")
				if len(acts) != 2 || acts[0].Type != TypeEdited || acts[1].Type != TypeAdded {
					t.Fatalf("Actions: %s", dump(acts))
				}
				wantField(t, acts[0].Fields, "Command", TypeEdited, "cat", "tac")
				wantField(t, acts[1].Fields, "Name", TypeAdded, "", "now")
			},
		},
		{
			name: "contextual: an unchanged set inside an edited block is a None object",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Services[0].PortLabel = "https" }),
			ctx:  true,
			check: func(t *testing.T, d *api.JobDiff) {
				svc := object(task(group(d, "app"), "server").Objects, "Service")
				if svc == nil || svc.Type != TypeEdited {
					t.Fatalf("Service: %s", dump(d))
				}
				wantField(t, svc.Fields, "PortLabel", TypeEdited, "http", "https")
				wantField(t, svc.Fields, "Name", TypeNone, "web", "web")
				tags := object(svc.Objects, "Tags")
				if tags == nil || tags.Type != TypeNone {
					t.Fatalf("Tags: %s", dump(svc))
				}
				wantField(t, tags.Fields, "Tags", TypeNone, "a", "a")
				if object(d.Objects, "Datacenters") != nil {
					t.Fatalf("unchanged job-level set listed: %s", dump(d.Objects))
				}
			},
		},
		{
			name: "non-contextual: an unchanged set is left out",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Services[0].PortLabel = "https" }),
			check: func(t *testing.T, d *api.JobDiff) {
				svc := object(task(group(d, "app"), "server").Objects, "Service")
				if svc == nil || len(svc.Fields) != 1 || len(svc.Objects) != 0 {
					t.Fatalf("Service: %s", dump(svc))
				}
			},
		},
		{
			name: "non-contextual edited block shows only changes",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.Update.MinHealthyTime = 30 * time.Second }),
			check: func(t *testing.T, d *api.JobDiff) {
				up := object(d.Objects, "Update")
				if up == nil || len(up.Fields) != 1 {
					t.Fatalf("Update: %s", dump(up))
				}
			},
		},
		{
			name: "count change edits the group",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.TaskGroups[0].Count = 5 }),
			check: func(t *testing.T, d *api.JobDiff) {
				g := group(d, "app")
				if d.Type != TypeEdited || g.Type != TypeEdited {
					t.Fatalf("got %s", dump(d))
				}
				wantField(t, g.Fields, "Count", TypeEdited, "2", "5")
				if len(g.Fields) != 1 || task(g, "server").Type != TypeNone {
					t.Fatalf("group: %s", dump(g))
				}
			},
		},
		{
			name: "task config change",
			old:  testJob(),
			new: mutated(func(j *structs.Job) {
				j.TaskGroups[0].Tasks[0].Config["image"] = "nginx:1.27"
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				tk := task(group(d, "app"), "server")
				if tk.Type != TypeEdited {
					t.Fatalf("task: %s", dump(tk))
				}
				cfg := object(tk.Objects, "Config")
				if cfg == nil || cfg.Type != TypeEdited || len(cfg.Fields) != 1 {
					t.Fatalf("Config: %s", dump(cfg))
				}
				wantField(t, cfg.Fields, "image", TypeEdited, "nginx:1.25", "nginx:1.27")
			},
		},
		{
			name: "config numbers compare by value, not Go type",
			old:  mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["port"] = 8080 }),
			new:  mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["port"] = 8080.0 }),
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeNone {
					t.Fatalf("got %s", dump(d))
				}
			},
		},
		{
			name: "meta added and removed",
			old:  testJob(),
			new: mutated(func(j *structs.Job) {
				j.Meta = map[string]string{"team": "blue"}
				j.TaskGroups[0].Tasks[0].Meta = map[string]string{"k": "v"}
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				wantField(t, d.Fields, "Meta[owner]", TypeDeleted, "ops", "")
				wantField(t, d.Fields, "Meta[team]", TypeAdded, "", "blue")
				wantField(t, task(group(d, "app"), "server").Fields, "Meta[k]", TypeAdded, "", "v")
			},
		},
		{
			name: "constraint added and removed",
			old: mutated(func(j *structs.Job) {
				j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "linux", Operand: "="}}
			}),
			new: mutated(func(j *structs.Job) {
				j.Constraints = []*structs.Constraint{{LTarget: "${attr.kernel.name}", RTarget: "darwin", Operand: "="}}
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				cs := objects(d.Objects, "Constraint")
				if len(cs) != 2 || cs[0].Type != TypeAdded || cs[1].Type != TypeDeleted {
					t.Fatalf("constraints: %s", dump(cs))
				}
				wantField(t, cs[0].Fields, "RTarget", TypeAdded, "", "darwin")
				wantField(t, cs[1].Fields, "RTarget", TypeDeleted, "linux", "")
			},
		},
		{
			name: "reordered constraints are unchanged",
			old: mutated(func(j *structs.Job) {
				j.Constraints = []*structs.Constraint{{LTarget: "a", RTarget: "1", Operand: "="}, {LTarget: "b", RTarget: "2", Operand: "="}}
			}),
			new: mutated(func(j *structs.Job) {
				j.Constraints = []*structs.Constraint{{LTarget: "b", RTarget: "2", Operand: "="}, {LTarget: "a", RTarget: "1", Operand: "="}}
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeNone {
					t.Fatalf("got %s", dump(d))
				}
			},
		},
		{
			name: "group added and removed",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.TaskGroups[0].Name = "api" }),
			check: func(t *testing.T, d *api.JobDiff) {
				if len(d.TaskGroups) != 2 || d.TaskGroups[0].Name != "api" || d.TaskGroups[1].Name != "app" {
					t.Fatalf("groups not sorted by name: %s", dump(d.TaskGroups))
				}
				if d.TaskGroups[0].Type != TypeAdded || d.TaskGroups[1].Type != TypeDeleted {
					t.Fatalf("groups: %s", dump(d.TaskGroups))
				}
				if tk := task(d.TaskGroups[1], "server"); tk.Type != TypeDeleted {
					t.Fatalf("task: %s", dump(tk))
				}
			},
		},
		{
			name: "datacenters change",
			old:  mutated(func(j *structs.Job) { j.Datacenters = []string{"dc1", "dc2"} }),
			new:  mutated(func(j *structs.Job) { j.Datacenters = []string{"dc3", "dc1"} }),
			ctx:  true,
			check: func(t *testing.T, d *api.JobDiff) {
				dc := object(d.Objects, "Datacenters")
				if dc == nil || dc.Type != TypeEdited || len(dc.Fields) != 3 {
					t.Fatalf("Datacenters: %s", dump(dc))
				}
				want := []api.FieldDiff{
					{Type: TypeNone, Name: "Datacenters", Old: "dc1", New: "dc1"},
					{Type: TypeDeleted, Name: "Datacenters", Old: "dc2"},
					{Type: TypeAdded, Name: "Datacenters", New: "dc3"},
				}
				for i, w := range want {
					if !reflect.DeepEqual(*dc.Fields[i], w) {
						t.Fatalf("field %d = %+v, want %+v", i, *dc.Fields[i], w)
					}
				}
			},
		},
		{
			name: "stop is an edit of Stop",
			old:  testJob(),
			new:  mutated(func(j *structs.Job) { j.Stop = true }),
			check: func(t *testing.T, d *api.JobDiff) {
				if d.Type != TypeEdited {
					t.Fatalf("got %s", d.Type)
				}
				wantField(t, d.Fields, "Stop", TypeEdited, "false", "true")
			},
		},
		{
			name: "service matched by name is Edited, tags diff as a set",
			old:  testJob(),
			new: mutated(func(j *structs.Job) {
				j.TaskGroups[0].Tasks[0].Services[0].Tags = []string{"a", "b"}
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				svc := objects(task(group(d, "app"), "server").Objects, "Service")
				if len(svc) != 1 || svc[0].Type != TypeEdited {
					t.Fatalf("Service: %s", dump(svc))
				}
				tags := object(svc[0].Objects, "Tags")
				if tags == nil || tags.Type != TypeEdited {
					t.Fatalf("Tags: %s", dump(tags))
				}
				wantField(t, tags.Fields, "Tags", TypeAdded, "", "b")
			},
		},
		{
			name: "nested block inside a block",
			old:  testJob(),
			new: mutated(func(j *structs.Job) {
				j.TaskGroups[0].Networks = []*structs.NetworkResource{{
					Mode: "bridge", DynamicPorts: []structs.Port{{Label: "http", To: 8080, Value: 23456}},
				}}
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				n := object(group(d, "app").Objects, "Network")
				if n == nil || n.Type != TypeAdded {
					t.Fatalf("Network: %s", dump(n))
				}
				p := object(n.Objects, "Dynamic Port")
				if p == nil || p.Type != TypeAdded || field(p.Fields, "Value") != nil {
					t.Fatalf("Dynamic Port: %s", dump(p))
				}
				wantField(t, p.Fields, "To", TypeAdded, "", "8080")
			},
		},
		{
			name: "pointer durations render as nanoseconds or unset",
			old:  testJob(),
			new: mutated(func(j *structs.Job) {
				d := time.Minute
				j.TaskGroups[0].MaxClientDisconnect = &d
			}),
			check: func(t *testing.T, d *api.JobDiff) {
				wantField(t, group(d, "app").Fields, "MaxClientDisconnect", TypeAdded, "", "60000000000")
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, Diff(tc.old, tc.new, tc.ctx))
		})
	}
}

func TestDiffBothNil(t *testing.T) {
	if d := Diff(nil, nil, false); d.Type != TypeNone {
		t.Fatalf("got %s", dump(d))
	}
}

// The plan output must not depend on map iteration order.
func TestDiffDeterministic(t *testing.T) {
	old := mutated(func(j *structs.Job) {
		j.Constraints = []*structs.Constraint{{LTarget: "a", RTarget: "1", Operand: "="}, {LTarget: "b", RTarget: "2", Operand: "="}}
		j.TaskGroups = append(j.TaskGroups, &structs.TaskGroup{Name: "zz", Count: 1})
	})
	new := mutated(func(j *structs.Job) {
		j.Constraints = []*structs.Constraint{{LTarget: "c", RTarget: "3", Operand: "="}, {LTarget: "d", RTarget: "4", Operand: "="}}
		j.Meta = map[string]string{"a": "1", "b": "2", "c": "3"}
		j.TaskGroups[0].Tasks[0].Config = map[string]any{"x": 1, "y": []any{1, 2}, "z": map[string]any{"k": "v"}}
		j.TaskGroups = append([]*structs.TaskGroup{{Name: "aa", Count: 1}}, j.TaskGroups...)
	})
	first := dump(Diff(old, new, true))
	for i := 0; i < 20; i++ {
		if got := dump(Diff(old, new, true)); got != first {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, got, first)
		}
	}
}

func TestAnnotate(t *testing.T) {
	cases := []struct {
		name      string
		new       *structs.Job
		wantTask  []string
		wantCount []string
	}{
		{
			name:     "config change forces create/destroy",
			new:      mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Config["image"] = "nginx:1.27" }),
			wantTask: []string{AnnotationForcesDestructive},
		},
		{
			name:     "env change forces create/destroy",
			new:      mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].Env["PORT"] = "9090" }),
			wantTask: []string{AnnotationForcesDestructive},
		},
		{
			name:     "kill timeout is in-place",
			new:      mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].KillTimeout = time.Minute }),
			wantTask: []string{AnnotationForcesInPlace},
		},
		{
			name: "task constraint and service are in-place",
			new: mutated(func(j *structs.Job) {
				tk := j.TaskGroups[0].Tasks[0]
				tk.Constraints = []*structs.Constraint{{LTarget: "a", RTarget: "b", Operand: "="}}
				tk.Services[0].Tags = []string{"z"}
			}),
			wantTask: []string{AnnotationForcesInPlace},
		},
		{
			name:     "log rotation is in-place",
			new:      mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].LogConfig.MaxFiles = 3 }),
			wantTask: []string{AnnotationForcesInPlace},
		},
		{
			name:     "disabling logs forces create/destroy",
			new:      mutated(func(j *structs.Job) { j.TaskGroups[0].Tasks[0].LogConfig.Disabled = true }),
			wantTask: []string{AnnotationForcesDestructive},
		},
		{
			name:      "count up forces create, unchanged task unannotated",
			new:       mutated(func(j *structs.Job) { j.TaskGroups[0].Count = 4 }),
			wantCount: []string{AnnotationForcesCreate},
		},
		{
			name:      "count down forces destroy",
			new:       mutated(func(j *structs.Job) { j.TaskGroups[0].Count = 1 }),
			wantCount: []string{AnnotationForcesDestroy},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := Diff(testJob(), tc.new, false)
			Annotate(d, nil)
			Annotate(d, nil) // idempotent
			g := group(d, "app")
			if got := task(g, "server").Annotations; !reflect.DeepEqual(got, tc.wantTask) {
				t.Fatalf("task annotations = %v, want %v", got, tc.wantTask)
			}
			var gotCount []string
			if f := field(g.Fields, "Count"); f != nil {
				gotCount = f.Annotations
			}
			if !reflect.DeepEqual(gotCount, tc.wantCount) {
				t.Fatalf("count annotations = %v, want %v", gotCount, tc.wantCount)
			}
		})
	}
}

func TestAnnotateGroupAddedRemoved(t *testing.T) {
	d := Diff(testJob(), mutated(func(j *structs.Job) { j.TaskGroups[0].Name = "api" }), false)
	Annotate(d, nil)
	if got := task(group(d, "api"), "server").Annotations; !reflect.DeepEqual(got, []string{AnnotationForcesCreate}) {
		t.Fatalf("added: %v", got)
	}
	if got := task(group(d, "app"), "server").Annotations; !reflect.DeepEqual(got, []string{AnnotationForcesDestroy}) {
		t.Fatalf("removed: %v", got)
	}
}

func TestAnnotateUpdates(t *testing.T) {
	d := Diff(testJob(), mutated(func(j *structs.Job) { j.TaskGroups[0].Count = 5 }), false)
	Annotate(d, map[string]*structs.DesiredUpdates{
		"app":   {Place: 3, Ignore: 2, DestructiveUpdate: 1, InPlaceUpdate: 4, Stop: 5, Migrate: 6, Canary: 7, Preemptions: 8},
		"other": {Place: 1},
	})
	want := map[string]uint64{
		UpdateCreate: 3, UpdateIgnore: 2, UpdateDestructive: 1, UpdateInPlace: 4,
		UpdateDestroy: 5, UpdateMigrate: 6, UpdateCanary: 7,
	}
	if got := group(d, "app").Updates; !reflect.DeepEqual(got, want) {
		t.Fatalf("Updates = %v, want %v", got, want)
	}

	d = Diff(testJob(), testJob(), false)
	Annotate(d, map[string]*structs.DesiredUpdates{"app": {Ignore: 2}})
	if got := group(d, "app").Updates; !reflect.DeepEqual(got, map[string]uint64{UpdateIgnore: 2}) {
		t.Fatalf("unchanged group Updates = %v (zero counts must be dropped)", got)
	}
	Annotate(nil, nil) // must not panic
}
