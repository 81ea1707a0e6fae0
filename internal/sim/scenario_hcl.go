package sim

import (
	"github.com/drover-project/drover/internal/structs"

	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
)

// The HCL scenario format mirrors Scenario: node and job blocks, one "at"
// block per step (labelled with its time, "30s", "2m"), and expect blocks
// inside steps or at the top level. See testdata/scenarios for examples.
type hclScenario struct {
	Name        string     `hcl:"name,optional"`
	Description string     `hcl:"description,optional"`
	Seed        int64      `hcl:"seed,optional"`
	Nodes       []hclNode  `hcl:"node,block"`
	Jobs        []hclJob   `hcl:"job,block"`
	Steps       []hclStep  `hcl:"at,block"`
	Expect      *hclExpect `hcl:"expect,block"`
}

type hclNode struct {
	Name       string            `hcl:"name,label"`
	Count      int               `hcl:"count,optional"`
	Deferred   bool              `hcl:"deferred,optional"`
	Datacenter string            `hcl:"datacenter,optional"`
	Pool       string            `hcl:"pool,optional"`
	Class      string            `hcl:"class,optional"`
	CPU        int64             `hcl:"cpu,optional"`
	Memory     int64             `hcl:"memory,optional"`
	Disk       int64             `hcl:"disk,optional"`
	Meta       map[string]string `hcl:"meta,optional"`
	Attributes map[string]string `hcl:"attributes,optional"`
}

type hclJob struct {
	Name          string          `hcl:"name,label"`
	Replicas      int             `hcl:"replicas,optional"`
	Deferred      bool            `hcl:"deferred,optional"`
	Type          string          `hcl:"type,optional"`
	Count         int             `hcl:"count,optional"`
	CPU           int             `hcl:"cpu,optional"`
	Memory        int             `hcl:"memory,optional"`
	Priority      int             `hcl:"priority,optional"`
	Datacenters   []string        `hcl:"datacenters,optional"`
	DistinctHosts bool            `hcl:"distinct_hosts,optional"`
	Health        string          `hcl:"health,optional"`
	Constraints   []hclConstraint `hcl:"constraint,block"`
	Update        *hclUpdate      `hcl:"update,block"`
	Disconnect    *hclDisconnect  `hcl:"disconnect,block"`
	MaxClientDisc string          `hcl:"max_client_disconnect,optional"`
	PreventResch  bool            `hcl:"prevent_reschedule_on_lost,optional"`
	Cron          string          `hcl:"cron,optional"`
	Parameterized bool            `hcl:"parameterized,optional"`
}

type hclConstraint struct {
	Attribute string `hcl:"attribute"`
	Operator  string `hcl:"operator,optional"`
	Value     string `hcl:"value,optional"`
}

type hclUpdate struct {
	MaxParallel    int    `hcl:"max_parallel,optional"`
	Canary         int    `hcl:"canary,optional"`
	AutoPromote    bool   `hcl:"auto_promote,optional"`
	MinHealthyTime string `hcl:"min_healthy_time,optional"`
	Stagger        string `hcl:"stagger,optional"`
}

type hclStep struct {
	At             string            `hcl:"at,label"`
	AddNodes       []string          `hcl:"add_nodes,optional"`
	Register       []string          `hcl:"register,optional"`
	Update         []string          `hcl:"update,optional"`
	Scale          map[string]int    `hcl:"scale,optional"`
	Stop           []string          `hcl:"stop,optional"`
	RejectPlans    []string          `hcl:"reject_plans,optional"`
	AcceptPlans    []string          `hcl:"accept_plans,optional"`
	WorkerDies     int               `hcl:"worker_dies,optional"`
	Down           []string          `hcl:"down,optional"`
	MissHeartbeats []string          `hcl:"miss_heartbeats,optional"`
	Resume         []string          `hcl:"resume,optional"`
	Fingerprint    []string          `hcl:"fingerprint,optional"`
	Fill           []string          `hcl:"fill,optional"`
	Drain          []string          `hcl:"drain,optional"`
	FailAlloc      []string          `hcl:"fail_alloc,optional"`
	Purge          []string          `hcl:"purge,optional"`
	StopAlloc      []string          `hcl:"stop_alloc,optional"`
	RestartAlloc   []string          `hcl:"restart_alloc,optional"`
	Ineligible     []string          `hcl:"ineligible,optional"`
	Eligible       []string          `hcl:"eligible,optional"`
	DrainDeadline  map[string]string `hcl:"drain_deadline,optional"`
	Promote        []string          `hcl:"promote,optional"`
	FailDeployment []string          `hcl:"fail_deployment,optional"`
	ForcePeriodic  []string          `hcl:"force_periodic,optional"`
	Dispatch       []string          `hcl:"dispatch,optional"`
	LeaderChange   bool              `hcl:"leader_change,optional"`
	Expect         *hclExpect        `hcl:"expect,block"`
}

type hclExpect struct {
	Since  string           `hcl:"since,optional"`
	Total  *int             `hcl:"total,optional"`
	Evals  []hclEvalExpect  `hcl:"evals,block"`
	Allocs []hclAllocExpect `hcl:"allocs,block"`
}

type hclDisconnect struct {
	LostAfter string `hcl:"lost_after,optional"`
	Replace   *bool  `hcl:"replace,optional"`
	Reconcile string `hcl:"reconcile,optional"`
}

type hclEvalExpect struct {
	Trigger        string `hcl:"trigger,optional"`
	Status         string `hcl:"status,optional"`
	Job            string `hcl:"job,optional"`
	Count          int    `hcl:"count"`
	Delayed        *bool  `hcl:"delayed,optional"`
	Previous       string `hcl:"previous,optional"`
	PreviousStatus string `hcl:"previous_status,optional"`
	Link           string `hcl:"link,optional"`
	Next           string `hcl:"next,optional"`
	Blocked        string `hcl:"blocked,optional"`
}

type hclAllocExpect struct {
	Job      string `hcl:"job,optional"`
	Node     string `hcl:"node,optional"`
	Desired  string `hcl:"desired,optional"`
	Client   string `hcl:"client,optional"`
	Restarts *int   `hcl:"restarts,optional"`
	Count    int    `hcl:"count"`
}

// LoadScenario reads a scenario file that holds one scenario (no variant
// blocks); its name defaults to the file's.
func LoadScenario(path string) (*Scenario, error) {
	scs, err := LoadScenarios(path)
	if err != nil {
		return nil, err
	}
	if len(scs) != 1 {
		return nil, fmt.Errorf("%s: %d variants, want one scenario (LoadScenarios)", path, len(scs))
	}
	return scs[0], nil
}

// LoadScenarios reads a scenario file: one scenario, or one per variant
// block (scenario_variants.go). Names default to the file's, with the
// variant's label in brackets.
func LoadScenarios(path string) ([]*Scenario, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	scs, err := ParseScenarios(src, path)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	for _, sc := range scs {
		if sc.Name == "" {
			sc.Name = base
		}
		if sc.Variant != "" {
			sc.Name += "[" + sc.Variant + "]"
		}
	}
	return scs, nil
}

// ParseScenario decodes a scenario (without variants) from HCL.
func ParseScenario(src []byte, filename string) (*Scenario, error) {
	f, diags := hclparse.NewParser().ParseHCL(src, filename)
	if diags.HasErrors() {
		return nil, diags
	}
	return decodeScenario(f.Body, nil)
}

// decodeScenario decodes a scenario body, with ctx binding var.NAME for
// a variant (nil for a plain file).
func decodeScenario(body hcl.Body, ctx *hcl.EvalContext) (*Scenario, error) {
	var raw hclScenario
	if diags := gohcl.DecodeBody(body, ctx, &raw); diags.HasErrors() {
		return nil, diags
	}
	return raw.scenario()
}

func (h *hclScenario) scenario() (*Scenario, error) {
	sc := &Scenario{Name: h.Name, Description: h.Description, Seed: h.Seed}
	for _, n := range h.Nodes {
		sc.Nodes = append(sc.Nodes, n.group())
	}
	for _, j := range h.Jobs {
		g, err := j.group()
		if err != nil {
			return nil, fmt.Errorf("job %q: %w", j.Name, err)
		}
		sc.Jobs = append(sc.Jobs, g)
	}
	for _, st := range h.Steps {
		step, err := st.step()
		if err != nil {
			return nil, fmt.Errorf("at %q: %w", st.At, err)
		}
		sc.Steps = append(sc.Steps, step)
	}
	e, err := h.Expect.expect()
	sc.Expect = e
	return sc, err
}

func (n hclNode) group() NodeGroup {
	return NodeGroup{Count: n.Count, Deferred: n.Deferred, NodeSpec: NodeSpec{
		Name: n.Name, Datacenter: n.Datacenter, Pool: n.Pool, Class: n.Class,
		CPU: n.CPU, MemoryMB: n.Memory, DiskMB: n.Disk, Meta: n.Meta, Attributes: n.Attributes,
	}}
}

func (j hclJob) group() (JobGroup, error) {
	spec := JobSpec{
		Name: j.Name, Type: j.Type, Count: j.Count, CPU: j.CPU, MemoryMB: j.Memory, Priority: j.Priority,
		Datacenters: j.Datacenters, DistinctHosts: j.DistinctHosts, Health: j.Health,
		Cron: j.Cron, Parameterized: j.Parameterized,
	}
	for _, c := range j.Constraints {
		spec.Constraints = append(spec.Constraints, ConstraintSpec(c))
	}
	if u := j.Update; u != nil {
		mht, err := parseDuration(u.MinHealthyTime)
		if err != nil {
			return JobGroup{}, err
		}
		stagger, err := parseDuration(u.Stagger)
		if err != nil {
			return JobGroup{}, err
		}
		spec.Update = &UpdateSpec{MaxParallel: u.MaxParallel, Canary: u.Canary, AutoPromote: u.AutoPromote, MinHealthyTime: mht, Stagger: stagger}
	}
	if err := j.disconnect(&spec); err != nil {
		return JobGroup{}, err
	}
	return JobGroup{JobSpec: spec, Replicas: j.Replicas, Deferred: j.Deferred}, nil
}

func (j hclJob) disconnect(spec *JobSpec) error {
	mcd, err := parseDuration(j.MaxClientDisc)
	if err != nil {
		return err
	}
	spec.MaxClientDisconnect = mcd
	spec.PreventRescheduleOnLost = j.PreventResch
	if d := j.Disconnect; d != nil {
		lost, err := parseDuration(d.LostAfter)
		if err != nil {
			return err
		}
		spec.Disconnect = &structs.DisconnectStrategy{LostAfter: lost, Replace: d.Replace, Reconcile: d.Reconcile}
	}
	return nil
}

func (h hclStep) step() (Step, error) {
	at, err := parseDuration(h.At)
	if err != nil {
		return Step{}, err
	}
	deadlines := map[string]time.Duration{}
	for node, d := range h.DrainDeadline {
		if deadlines[node], err = parseDuration(d); err != nil {
			return Step{}, err
		}
	}
	e, err := h.Expect.expect()
	return Step{
		At: at, AddNodes: h.AddNodes, Register: h.Register, Update: h.Update, Scale: h.Scale, Stop: h.Stop,
		RejectPlans: h.RejectPlans, AcceptPlans: h.AcceptPlans, WorkerDies: h.WorkerDies,
		Down: h.Down, MissHeartbeats: h.MissHeartbeats, Resume: h.Resume, Fingerprint: h.Fingerprint,
		Fill: h.Fill, Drain: h.Drain, FailAlloc: h.FailAlloc,
		Purge: h.Purge, StopAlloc: h.StopAlloc, RestartAlloc: h.RestartAlloc, Ineligible: h.Ineligible, Eligible: h.Eligible,
		DrainDeadline: deadlines, Promote: h.Promote, FailDeployment: h.FailDeployment,
		ForcePeriodic: h.ForcePeriodic, Dispatch: h.Dispatch,
		LeaderChange: h.LeaderChange, Expect: e,
	}, err
}

func (h *hclExpect) expect() (*Expect, error) {
	if h == nil {
		return nil, nil
	}
	since, err := parseDuration(h.Since)
	if err != nil {
		return nil, err
	}
	e := &Expect{Since: since, Total: h.Total}
	for _, ev := range h.Evals {
		e.Evals = append(e.Evals, EvalExpect(ev))
	}
	for _, a := range h.Allocs {
		e.Allocs = append(e.Allocs, AllocExpect(a))
	}
	return e, nil
}

// parseDuration accepts Go durations; empty and "0" mean zero.
func parseDuration(s string) (time.Duration, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	return time.ParseDuration(s)
}
