package structs

// Plan is what a scheduler proposes for one evaluation. The plan applier on
// the leader checks it against the latest state and commits what fits.
type Plan struct {
	// ID names the plan: its eval and the worker's attempt ("<eval>/plan-N"),
	// so the applying step of the eval's timeline can say which plan.
	ID        string
	EvalID    string
	EvalToken string
	Priority  int
	AllAtOnce bool
	Job       *Job
	// NodeUpdate: allocs to stop or evict, by node.
	NodeUpdate map[string][]*Allocation
	// NodeAllocation: allocs to create or update in place, by node.
	NodeAllocation map[string][]*Allocation
	// NodePreemptions: allocs to preempt, by node.
	NodePreemptions   map[string][]*Allocation
	Annotations       *PlanAnnotations
	Deployment        *Deployment
	DeploymentUpdates []*DeploymentStatusUpdate
	SnapshotIndex     uint64
	// FinalEval is the eval as the scheduler will write it if this plan
	// commits in full (nothing is left to do then). The leader writes it
	// in the plan's own entry when every part of the plan fits, says so
	// in PlanResult.EvalFinished, and acks the eval once the entry
	// commits (or nacks it if the entry fails): one raft entry and one
	// round trip fewer per eval. A plan that is partly rejected commits
	// without it, and the scheduler goes on as before.
	FinalEval *Evaluation
}

// IsNoOp reports whether the plan changes nothing.
func (p *Plan) IsNoOp() bool {
	return len(p.NodeUpdate) == 0 && len(p.NodeAllocation) == 0 &&
		p.Deployment == nil && len(p.DeploymentUpdates) == 0
}

// AppendAlloc adds a placement on a node.
func (p *Plan) AppendAlloc(a *Allocation) {
	if p.NodeAllocation == nil {
		p.NodeAllocation = map[string][]*Allocation{}
	}
	p.NodeAllocation[a.NodeID] = append(p.NodeAllocation[a.NodeID], a)
}

// AppendStoppedAlloc adds a stop of an existing alloc; the alloc is copied.
func (p *Plan) AppendStoppedAlloc(a *Allocation, desc, clientStatus string) {
	c := a.Copy()
	c.DesiredStatus = AllocDesiredStatusStop
	c.DesiredDescription = desc
	if clientStatus != "" {
		c.ClientStatus = clientStatus
	}
	if p.NodeUpdate == nil {
		p.NodeUpdate = map[string][]*Allocation{}
	}
	p.NodeUpdate[a.NodeID] = append(p.NodeUpdate[a.NodeID], c)
}

// PlanAnnotations explain a plan for `job plan`.
type PlanAnnotations struct {
	DesiredTGUpdates map[string]*DesiredUpdates
	PreemptedAllocs  []*Allocation
}

// DesiredUpdates counts the scheduler's decisions for one task group.
type DesiredUpdates struct {
	Ignore            uint64
	Place             uint64
	Migrate           uint64
	Stop              uint64
	InPlaceUpdate     uint64
	DestructiveUpdate uint64
	Canary            uint64
	Preemptions       uint64
}

// PlanResult is what the leader accepted of a plan.
type PlanResult struct {
	NodeUpdate        map[string][]*Allocation
	NodeAllocation    map[string][]*Allocation
	NodePreemptions   map[string][]*Allocation
	Deployment        *Deployment
	DeploymentUpdates []*DeploymentStatusUpdate
	// RefreshIndex is set when part of the plan was rejected: the scheduler
	// must refresh its state to at least this index before retrying.
	RefreshIndex uint64
	// AllocIndex is the raft index at which the accepted part was committed.
	AllocIndex uint64
	// RejectedNodes lists the nodes whose part of the plan did not fit.
	RejectedNodes []string
	// EvalFinished: the plan's entry writes its FinalEval, stamped
	// EvalFinishTime (the entry's time, when the leader accepted the
	// plan), and the leader acks or nacks the eval once the entry's
	// outcome is known. Its worker writes and acks nothing more.
	EvalFinished   bool
	EvalFinishTime int64
}

// FullCommit reports whether everything the plan asked for was committed,
// and the expected and actual counts of allocations.
func (r *PlanResult) FullCommit(p *Plan) (bool, int, int) {
	expected, actual := 0, 0
	for node, allocs := range p.NodeAllocation {
		expected += len(allocs)
		actual += len(r.NodeAllocation[node])
	}
	return expected == actual, expected, actual
}

// SchedulerAlgorithm chooses between packing and spreading allocations.
const (
	SchedulerAlgorithmBinpack = "binpack"
	SchedulerAlgorithmSpread  = "spread"
)

// SchedulerConfiguration is the cluster-wide, raft-stored scheduler config.
type SchedulerConfiguration struct {
	SchedulerAlgorithm            string
	PreemptionConfig              PreemptionConfig
	MemoryOversubscriptionEnabled bool
	RejectJobRegistration         bool
	PauseEvalBroker               bool
	CreateIndex                   uint64
	ModifyIndex                   uint64
}

// PreemptionConfig says which scheduler types may preempt.
type PreemptionConfig struct {
	SystemSchedulerEnabled   bool
	SysBatchSchedulerEnabled bool
	BatchSchedulerEnabled    bool
	ServiceSchedulerEnabled  bool
}

// DefaultSchedulerConfiguration is Nomad's default.
func DefaultSchedulerConfiguration() *SchedulerConfiguration {
	return &SchedulerConfiguration{
		SchedulerAlgorithm: SchedulerAlgorithmBinpack,
		PreemptionConfig:   PreemptionConfig{SystemSchedulerEnabled: true},
	}
}

// EffectiveAlgorithm returns the algorithm, defaulting to binpack.
func (c *SchedulerConfiguration) EffectiveAlgorithm() string {
	if c == nil || c.SchedulerAlgorithm == "" {
		return SchedulerAlgorithmBinpack
	}
	return c.SchedulerAlgorithm
}
