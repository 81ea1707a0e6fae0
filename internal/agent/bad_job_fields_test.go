package agent

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// fieldsJob is a valid service job with a network port, a service with a
// check, an artifact and a log config, for the bad-field cases to break.
func fieldsJob(id string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	tg := api.NewTaskGroup("g", 1)
	tg.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
	tg.Services = []*api.Service{{Name: "web-api", PortLabel: "http", Provider: "nomad",
		Checks: []api.ServiceCheck{{Name: "alive", Type: "tcp", Interval: 10 * time.Second, Timeout: 2 * time.Second}}}}
	tg.EphemeralDisk = &api.EphemeralDisk{SizeMB: pointer(300)}
	task := api.NewTask("t", "exec")
	task.Config = map[string]any{"command": "/bin/true"}
	task.Artifacts = []*api.TaskArtifact{{GetterSource: pointer("https://example.com/app.tgz"), GetterMode: pointer("any")}}
	task.LogConfig = &api.LogConfig{MaxFiles: pointer(10), MaxFileSizeMB: pointer(10)}
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

// TestJobRegister_BadFieldsAre400NamingTheField registers, through the
// official client, jobs that were accepted before (issue 27) and checks
// each is a 400 naming the field, with no job and no eval written.
func TestJobRegister_BadFieldsAre400NamingTheField(t *testing.T) {
	a, c := testAgent(t, nil)
	cases := []struct {
		name   string
		field  string
		mutate func(j *api.Job)
	}{
		{"negative healthy deadline", "Update.HealthyDeadline", func(j *api.Job) {
			j.Update = &api.UpdateStrategy{HealthyDeadline: pointer(-time.Minute)}
		}},
		{"negative group shutdown delay", "TaskGroups[0].ShutdownDelay", func(j *api.Job) {
			j.TaskGroups[0].ShutdownDelay = pointer(-time.Second)
		}},
		{"check interval under a second", "TaskGroups[0].Services[0].Checks[0].Interval", func(j *api.Job) {
			j.TaskGroups[0].Services[0].Checks[0].Interval = 500 * time.Millisecond
		}},
		{"unknown service provider", "TaskGroups[0].Services[0].Provider", func(j *api.Job) {
			j.TaskGroups[0].Services[0].Provider = "etcd"
		}},
		{"service name not RFC 1123", "TaskGroups[0].Services[0].Name", func(j *api.Job) {
			j.TaskGroups[0].Services[0].Name = "web_api!"
		}},
		{"task service name not RFC 1123", "TaskGroups[0].Tasks[0].Services[0].Name", func(j *api.Job) {
			j.TaskGroups[0].Tasks[0].Services = []*api.Service{{Name: "-web", PortLabel: "http", Provider: "nomad"}}
		}},
		{"affinity weight zero", "Affinities[0].Weight", func(j *api.Job) {
			j.Affinities = []*api.Affinity{{LTarget: "${node.class}", RTarget: "big", Operand: "=", Weight: pointer(int8(0))}}
		}},
		{"unknown artifact mode", "TaskGroups[0].Tasks[0].Artifacts[0].GetterMode", func(j *api.Job) {
			j.TaskGroups[0].Tasks[0].Artifacts[0].GetterMode = pointer("folder")
		}},
		{"logs larger than the ephemeral disk", "TaskGroups[0].Tasks[0].LogConfig", func(j *api.Job) {
			j.TaskGroups[0].Tasks[0].LogConfig = &api.LogConfig{MaxFiles: pointer(20), MaxFileSizeMB: pointer(20)}
		}},
		{"group name with NUL", "TaskGroups[0].Name", func(j *api.Job) {
			j.TaskGroups[0].Name = pointer("g\x00x")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job := fieldsJob("bad")
			tc.mutate(job)
			before := a.Server().State().LatestIndex()
			_, _, err := c.Jobs().Register(job, nil)
			var resp api.UnexpectedResponseError
			if !errors.As(err, &resp) || resp.StatusCode() != http.StatusBadRequest {
				t.Fatalf("register = %v, want a 400", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("message %q does not name %s", err.Error(), tc.field)
			}
			if after := a.Server().State().LatestIndex(); after != before {
				t.Errorf("state index moved from %d to %d on a refused register", before, after)
			}
			if _, _, err := c.Jobs().Info("bad", nil); err == nil {
				t.Errorf("the refused job was written")
			}
			if evals, _, err := c.Evaluations().List(nil); err != nil || len(evals) != 0 {
				t.Errorf("evals after a refused register: %d (%v)", len(evals), err)
			}
		})
	}
}

// TestJobRegister_AcceptsWhatNomadAllows keeps the new checks from
// refusing what Nomad takes: interpolated service names, an unset affinity
// weight (50), and the artifact modes Nomad knows. (Services whose provider
// is consul, or unset, Nomad's default, are refused since issue 29:
// TestJobRegister_RefusedFieldsAre400NamingEveryField.)
func TestJobRegister_AcceptsWhatNomadAllows(t *testing.T) {
	_, c := testAgent(t, nil)
	job := fieldsJob("ok")
	job.Affinities = []*api.Affinity{{LTarget: "${node.class}", RTarget: "big", Operand: "="}}
	job.TaskGroups[0].ShutdownDelay = pointer(5 * time.Second)
	job.TaskGroups[0].Services = append(job.TaskGroups[0].Services,
		&api.Service{Name: "${NOMAD_JOB_NAME}-${NOMAD_GROUP_NAME}", PortLabel: "http", Provider: "nomad"},
		&api.Service{Name: "${JOB}", PortLabel: "http", Provider: "nomad"})
	job.TaskGroups[0].Tasks[0].Artifacts = append(job.TaskGroups[0].Tasks[0].Artifacts,
		&api.TaskArtifact{GetterSource: pointer("https://example.com/a"), GetterMode: pointer("file"), RelativeDest: pointer("local/a")},
		&api.TaskArtifact{GetterSource: pointer("https://example.com/b"), GetterMode: pointer("dir")})
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatalf("register: %v", err)
	}
	got, _, err := c.Jobs().Info("ok", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := *got.Affinities[0].Weight; w != 50 {
		t.Errorf("unset affinity weight = %d, want Nomad's default 50", w)
	}
	if d := got.TaskGroups[0].ShutdownDelay; d == nil || *d != 5*time.Second {
		t.Errorf("group shutdown delay = %v, want 5s", d)
	}
}
