package apiconv

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

func TestFixturesAreFullyPopulated(t *testing.T) {
	requireNoZero(t, fullStructsJob())
	requireNoZero(t, fullAPIJob(), apiJobSkips()...)
}

func TestJobRoundTripFromAPI(t *testing.T) {
	in := fullAPIJob()
	s := JobToStructs(in)
	requireSameByName(t, in, s)
	requireEqual(t, fullAPIJob(), in) // the input is not modified
	requireEqual(t, in, JobFromStructs(s))
}

func TestJobRoundTripFromStructs(t *testing.T) {
	for name, mutate := range map[string]func(*structs.Job){
		"full":          func(*structs.Job) {},
		"canonicalized": func(j *structs.Job) { j.Canonicalize() },
		"one spec":      func(j *structs.Job) { j.Periodic.Specs = []string{"@daily"} },
		"no specs":      func(j *structs.Job) { j.Periodic.Specs = nil },
		"empty specs":   func(j *structs.Job) { j.Periodic.Specs = []string{} },
		"optional blocks absent": func(j *structs.Job) {
			j.Periodic, j.ParameterizedJob, j.Reschedule, j.Migrate = nil, nil, nil, nil
			tg := j.TaskGroups[0]
			tg.Update, tg.Migrate, tg.Scaling, tg.RestartPolicy, tg.ReschedulePolicy = nil, nil, nil, nil, nil
			tg.Disconnect, tg.EphemeralDisk, tg.StopAfterClientDisconnect, tg.MaxClientDisconnect = nil, nil, nil, nil
			task := tg.Tasks[0]
			task.Resources, task.RestartPolicy, task.Lifecycle, task.LogConfig, task.DispatchPayload = nil, nil, nil, nil, nil
			tg.Disconnect = &structs.DisconnectStrategy{LostAfter: time.Minute}
		},
		"empty collections": func(j *structs.Job) {
			j.Datacenters, j.Constraints, j.Meta, j.Payload = []string{}, []*structs.Constraint{}, map[string]string{}, []byte{}
			j.TaskGroups[0].Tasks[0].Config = map[string]any{}
		},
	} {
		t.Run(name, func(t *testing.T) {
			in := fullStructsJob()
			mutate(in)
			out := JobFromStructs(in)
			if name == "full" {
				requireSameByName(t, out, in)
			}
			requireEqual(t, in, JobToStructs(out))
		})
	}
}

func TestJobFromStructsSetsEveryPointer(t *testing.T) {
	requireNoZero(t, JobFromStructs(fullStructsJob()), apiJobSkips()...)
}

func TestJobConversionDoesNotAlias(t *testing.T) {
	in := fullStructsJob()
	out := JobFromStructs(in)
	out.TaskGroups[0].Tasks[0].Config["nested"].(map[string]any)["list"].([]map[string]any)[0]["k"] = "changed"
	out.TaskGroups[0].Tasks[0].Config["args"].([]string)[0] = "changed"
	*out.TaskGroups[0].Disconnect.Replace = false
	out.Meta["job"] = "changed"
	requireEqual(t, fullStructsJob(), in)

	apiIn := fullAPIJob()
	s := JobToStructs(apiIn)
	s.TaskGroups[0].Tasks[0].Config["m"].(map[string]any)["x"] = false
	*s.TaskGroups[0].StopAfterClientDisconnect = 0
	s.Payload[0] = 9
	requireEqual(t, fullAPIJob(), apiIn)
}

func TestJobToStructsNilPointersBecomeZero(t *testing.T) {
	in := &api.Job{
		ID:         new("j"),
		Update:     &api.UpdateStrategy{},
		TaskGroups: []*api.TaskGroup{{Tasks: []*api.Task{{Name: "t", Resources: &api.Resources{}, LogConfig: &api.LogConfig{}}}}},
	}
	got := JobToStructs(in)
	want := &structs.Job{
		ID: "j",
		// A present but empty update block takes Nomad's defaults.
		Update: defaultUpdate,
		TaskGroups: []*structs.TaskGroup{{
			Count: 1,
			Tasks: []*structs.Task{{Name: "t", Resources: &structs.Resources{}, LogConfig: &structs.LogConfig{}}},
		}},
	}
	requireEqual(t, want, got)
}

// Nomad's defaults that need to know whether a value was given at all,
// because the zero value is also a legal choice.
func TestJobToStructsPresenceDefaults(t *testing.T) {
	cases := []struct {
		name  string
		group *api.TaskGroup
		job   func(*api.Job)
		check func(*testing.T, *structs.Job)
	}{
		{"count defaults to 1", &api.TaskGroup{}, nil, func(t *testing.T, j *structs.Job) {
			expect(t, j.TaskGroups[0].Count, 1)
		}},
		{"explicit count 0 kept", &api.TaskGroup{Count: new(0)}, nil, func(t *testing.T, j *structs.Job) {
			expect(t, j.TaskGroups[0].Count, 0)
		}},
		{"count from scaling min", &api.TaskGroup{Scaling: &api.ScalingPolicy{Min: new(int64(4)), Max: new(int64(9))}}, nil, func(t *testing.T, j *structs.Job) {
			expect(t, j.TaskGroups[0].Count, 4)
			expect(t, j.TaskGroups[0].Scaling.Enabled, true)
		}},
		{"scaling min from count", &api.TaskGroup{Count: new(3), Scaling: &api.ScalingPolicy{Max: new(int64(9)), Enabled: new(false)}}, nil, func(t *testing.T, j *structs.Job) {
			expect(t, j.TaskGroups[0].Scaling.Min, int64(3))
			expect(t, j.TaskGroups[0].Scaling.Enabled, false)
		}},
		{"periodic enabled by presence", &api.TaskGroup{}, func(j *api.Job) { j.Periodic = &api.PeriodicConfig{Spec: new("@daily")} }, func(t *testing.T, j *structs.Job) {
			expect(t, j.Periodic.Enabled, true)
			requireEqual(t, []string{"@daily"}, j.Periodic.Specs)
		}},
		{"periodic explicitly disabled", &api.TaskGroup{}, func(j *api.Job) { j.Periodic = &api.PeriodicConfig{Enabled: new(false)} }, func(t *testing.T, j *structs.Job) {
			expect(t, j.Periodic.Enabled, false)
		}},
		{"deprecated logs.enabled", &api.TaskGroup{Tasks: []*api.Task{{LogConfig: &api.LogConfig{Enabled: new(false)}}}}, nil, func(t *testing.T, j *structs.Job) {
			expect(t, j.TaskGroups[0].Tasks[0].LogConfig.Disabled, true)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := &api.Job{TaskGroups: []*api.TaskGroup{tc.group}}
			if tc.job != nil {
				tc.job(in)
			}
			tc.check(t, JobToStructs(in))
		})
	}
}

// Partial group and task blocks inherit what they leave out from the job
// and group blocks, as in Nomad.
func TestJobToStructsInheritsPartialBlocks(t *testing.T) {
	in := fullAPIJob()
	tg := in.TaskGroups[0]
	tg.Update = &api.UpdateStrategy{Canary: new(7)}
	tg.Migrate = &api.MigrateStrategy{MaxParallel: new(0)}
	tg.ReschedulePolicy = &api.ReschedulePolicy{Attempts: new(1)}
	tg.Tasks[0].RestartPolicy = &api.RestartPolicy{Mode: new("fail")}

	got := JobToStructs(in).TaskGroups[0]

	wantUpdate := updateToStructs(in.Update)
	wantUpdate.Canary = 7
	requireEqual(t, &wantUpdate, got.Update)
	wantMigrate := migrateToStructs(in.Migrate)
	wantMigrate.MaxParallel = 0 // explicit zero is not overridden
	requireEqual(t, wantMigrate, got.Migrate)
	wantResched := rescheduleToStructs(in.Reschedule)
	wantResched.Attempts = 1
	requireEqual(t, wantResched, got.ReschedulePolicy)
	wantRestart := restartToStructs(tg.RestartPolicy)
	wantRestart.Mode = "fail"
	requireEqual(t, wantRestart, got.Tasks[0].RestartPolicy)

	requireEqual(t, &api.UpdateStrategy{Canary: new(7)}, tg.Update) // request untouched
}

func TestJobToStructsDropsNilElements(t *testing.T) {
	in := &api.Job{
		Constraints: []*api.Constraint{nil, {Operand: "="}},
		TaskGroups:  []*api.TaskGroup{nil, {Name: new("g"), Tasks: []*api.Task{nil}}},
	}
	got := JobToStructs(in)
	expect(t, len(got.Constraints), 1)
	expect(t, len(got.TaskGroups), 1)
	expect(t, len(got.TaskGroups[0].Tasks), 0)
}

func TestJobListStub(t *testing.T) {
	j := fullStructsJob()
	summary := &api.JobSummary{JobID: j.ID, Namespace: j.Namespace}
	want := &api.JobListStub{
		ID: j.ID, ParentID: j.ParentID, Name: j.Name, Namespace: j.Namespace, Datacenters: j.Datacenters,
		Type: j.Type, Priority: j.Priority, Periodic: true,
		ParameterizedJob: false, // dispatched children are not parameterized parents
		Stop:             j.Stop, Status: j.Status, StatusDescription: j.StatusDescription, JobSummary: summary,
		CreateIndex: j.CreateIndex, ModifyIndex: j.ModifyIndex, JobModifyIndex: j.JobModifyIndex, SubmitTime: j.SubmitTime,
	}
	requireEqual(t, want, JobListStub(j, summary))

	j.Dispatched = false
	expect(t, JobListStub(j, nil).ParameterizedJob, true)
}

func expect[T comparable](t *testing.T, got, want T) {
	t.Helper()
	if got != want {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A service job without an update block gets Nomad's default strategy (so
// its updates are deployments); a batch job gets none.
func TestJobToStructs_ServiceJobsGetTheDefaultUpdate(t *testing.T) {
	svc := api.NewServiceJob("web", "web", "global", 50)
	if got := JobToStructs(svc).Update; got != defaultUpdate {
		t.Fatalf("service job update: %+v", got)
	}
	batch := api.NewBatchJob("b", "b", "global", 50)
	if got := JobToStructs(batch).Update; got.MaxParallel != 0 {
		t.Fatalf("batch job update: %+v", got)
	}
	off := api.NewServiceJob("off", "off", "global", 50)
	off.Update = &api.UpdateStrategy{MaxParallel: new(0)}
	if got := JobToStructs(off).Update; got.MaxParallel != 0 {
		t.Fatalf("explicit max_parallel 0: %+v", got)
	}
}
