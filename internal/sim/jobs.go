package sim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// JobSpec is the small job shape scenarios need: one group "g" with one
// task "t" on the mock driver.
type JobSpec struct {
	Name          string
	Type          string // service (default), batch, system, sysbatch
	Count         int    // default 1; ignored by system jobs
	CPU           int    // MHz, default 100
	MemoryMB      int    // default 64
	Priority      int    // default 50
	Datacenters   []string
	DistinctHosts bool
	Constraints   []ConstraintSpec
	Update        *UpdateSpec
	// Health is how its allocs report in deployments (HealthHealthy...).
	Health string
	// Version is put in the task config: changing it is a destructive
	// update.
	Version int
	// Disconnect is the group's disconnect block; MaxClientDisconnect the
	// older max_client_disconnect.
	Disconnect          *structs.DisconnectStrategy
	MaxClientDisconnect time.Duration
	// PreventRescheduleOnLost is the group's prevent_reschedule_on_lost.
	PreventRescheduleOnLost bool
	// Cron makes the job a periodic parent launching a child per tick;
	// Parameterized a parent launching a child per dispatch.
	Cron          string
	Parameterized bool
}

// ConstraintSpec is one constraint; Attribute may omit the ${...}.
type ConstraintSpec struct {
	Attribute string
	Operator  string // default "="
	Value     string
}

// UpdateSpec is the job's update block.
type UpdateSpec struct {
	MaxParallel    int
	Canary         int
	AutoPromote    bool
	MinHealthyTime time.Duration
	Stagger        time.Duration // system jobs: the wait between rolling steps
}

// Job builds the job the spec describes.
func (j JobSpec) Job() *structs.Job {
	typ := j.Type
	if typ == "" {
		typ = structs.JobTypeService
	}
	count := max(j.Count, 1)
	dcs := j.Datacenters
	if len(dcs) == 0 {
		dcs = []string{"dc1"}
	}
	job := &structs.Job{
		ID: j.Name, Name: j.Name, Type: typ, Priority: j.Priority, Datacenters: dcs,
		TaskGroups: []*structs.TaskGroup{{
			Name: "g", Count: count,
			Tasks: []*structs.Task{{
				Name: "t", Driver: "mock",
				Config:    map[string]any{"run_for": "1h", "version": fmt.Sprint(j.Version)},
				Resources: &structs.Resources{CPU: orDefault(j.CPU, 100), MemoryMB: orDefault(j.MemoryMB, 64)},
			}},
		}},
	}
	if j.Cron != "" {
		job.Periodic = &structs.PeriodicConfig{Enabled: true, Specs: []string{j.Cron}, SpecType: structs.PeriodicSpecCron, TimeZone: "UTC"}
	}
	if j.Parameterized {
		job.ParameterizedJob = &structs.ParameterizedJobConfig{Payload: structs.DispatchPayloadOptional}
	}
	job.TaskGroups[0].Disconnect = j.Disconnect.Copy()
	job.TaskGroups[0].PreventRescheduleOnLost = j.PreventRescheduleOnLost
	if j.MaxClientDisconnect > 0 {
		mcd := j.MaxClientDisconnect
		job.TaskGroups[0].MaxClientDisconnect = &mcd
	}
	if j.DistinctHosts {
		job.Constraints = append(job.Constraints, &structs.Constraint{Operand: structs.ConstraintDistinctHosts})
	}
	for _, c := range j.Constraints {
		job.Constraints = append(job.Constraints, c.constraint())
	}
	if u := j.Update; u != nil {
		job.Update = structs.UpdateStrategy{
			MaxParallel: u.MaxParallel, Canary: u.Canary, AutoPromote: u.AutoPromote,
			MinHealthyTime: u.MinHealthyTime, HealthyDeadline: 5 * time.Minute, ProgressDeadline: 10 * time.Minute,
			Stagger: u.Stagger,
		}
	}
	return job
}

func (c ConstraintSpec) constraint() *structs.Constraint {
	attr := c.Attribute
	if attr != "" && !strings.HasPrefix(attr, "${") {
		attr = "${" + attr + "}"
	}
	op := c.Operator
	if op == "" {
		op = structs.ConstraintEqual
	}
	return &structs.Constraint{LTarget: attr, RTarget: c.Value, Operand: op}
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// RegisterJob registers (or re-registers) a job and runs to idle.
func (s *Sim) RegisterJob(spec JobSpec) error {
	s.mu.Lock()
	s.jobs[spec.Name] = &spec
	s.mu.Unlock()
	if _, err := server.JobRegister.Call(context.Background(), s.srv, &structs.JobRegisterArgs{Job: spec.Job()}); err != nil {
		return fmt.Errorf("sim: register job %s: %w", spec.Name, err)
	}
	return s.RunUntilIdle()
}

// UpdateJob registers a new version of a registered job with a changed
// task config: a destructive update (a deployment if it has an update
// block).
func (s *Sim) UpdateJob(name string) error {
	spec, err := s.jobSpec(name)
	if err != nil {
		return err
	}
	spec.Version++
	return s.RegisterJob(spec)
}

// Scale sets the job's group count through the scale endpoint.
func (s *Sim) Scale(name string, count int) error {
	spec, err := s.jobSpec(name)
	if err != nil {
		return err
	}
	spec.Count = count
	s.mu.Lock()
	s.jobs[name] = &spec
	s.mu.Unlock()
	c := int64(count)
	if _, err := server.JobScale.Call(context.Background(), s.srv, &structs.JobScaleArgs{JobID: name, Group: "g", Count: &c}); err != nil {
		return fmt.Errorf("sim: scale %s: %w", name, err)
	}
	return s.RunUntilIdle()
}

// StopJob deregisters a job.
func (s *Sim) StopJob(name string) error {
	if _, err := server.JobDeregister.Call(context.Background(), s.srv, &structs.JobDeregisterArgs{JobID: name}); err != nil {
		return fmt.Errorf("sim: stop %s: %w", name, err)
	}
	return s.RunUntilIdle()
}

func (s *Sim) jobSpec(name string) (JobSpec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[name]
	if !ok {
		return JobSpec{}, fmt.Errorf("sim: no job %q", name)
	}
	return *j, nil
}
