package drainer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

var t0 = time.Unix(1_700_000_000, 0)

// world is a tiny state: the tests step the drainer over it and play the
// scheduler and the client between steps.
type world struct {
	nodes  []*structs.Node
	jobs   map[string]*structs.Job
	allocs []*structs.Allocation
	evals  []*structs.Evaluation
	ids    int
}

func newWorld() *world { return &world{jobs: map[string]*structs.Job{}} }

func (w *world) job(id, typ string, priority int, groups ...*structs.TaskGroup) *structs.Job {
	j := &structs.Job{Namespace: "default", ID: id, Type: typ, Priority: priority, TaskGroups: groups}
	w.jobs[id] = j
	return j
}

func group(name string, migrate *structs.MigrateStrategy) *structs.TaskGroup {
	return &structs.TaskGroup{Name: name, Count: 10, Migrate: migrate}
}

func (w *world) node(id string, drain *structs.DrainStrategy) *structs.Node {
	n := &structs.Node{ID: id, Status: structs.NodeStatusReady, DrainStrategy: drain}
	w.nodes = append(w.nodes, n)
	return n
}

// place adds a running alloc of the job's group on the node.
func (w *world) place(j *structs.Job, tg, nodeID string) *structs.Allocation {
	w.ids++
	a := &structs.Allocation{
		ID: fmt.Sprintf("%s-%s-%03d", j.ID, tg, w.ids), Namespace: j.Namespace, JobID: j.ID, Job: j,
		TaskGroup: tg, NodeID: nodeID, DesiredStatus: structs.AllocDesiredStatusRun,
		ClientStatus: structs.AllocClientStatusRunning,
	}
	w.allocs = append(w.allocs, a)
	return a
}

func (w *world) input(now time.Time) Input {
	return Input{
		Now:   now,
		Nodes: w.nodes,
		AllocsByNode: func(nodeID string) []*structs.Allocation {
			return w.filter(func(a *structs.Allocation) bool { return a.NodeID == nodeID })
		},
		AllocsByJob: func(ns, jobID string) []*structs.Allocation {
			return w.filter(func(a *structs.Allocation) bool { return a.Namespace == ns && a.JobID == jobID })
		},
		Job: func(ns, jobID string) *structs.Job { return w.jobs[jobID] },
		EvalsByJob: func(ns, jobID string) []*structs.Evaluation {
			var out []*structs.Evaluation
			for _, e := range w.evals {
				if e.Namespace == ns && e.JobID == jobID {
					out = append(out, e)
				}
			}
			return out
		},
	}
}

func (w *world) filter(keep func(*structs.Allocation) bool) []*structs.Allocation {
	var out []*structs.Allocation
	for _, a := range w.allocs {
		if keep(a) {
			out = append(out, a)
		}
	}
	return out
}

// apply writes the Migrate transitions and the evals, as the leader would
// through raft (copy, never change a stored object).
func (w *world) apply(act Actions) {
	for id, tr := range act.Transitions() {
		w.update(id, func(a *structs.Allocation) { a.DesiredTransition = *tr })
	}
	w.evals = append(w.evals, act.Evals...)
}

func (w *world) update(id string, change func(*structs.Allocation)) {
	for i, a := range w.allocs {
		if a.ID == id {
			c := *a
			change(&c)
			w.allocs[i] = &c
			return
		}
	}
	panic("no alloc " + id)
}

// reschedule plays the scheduler: every live migrating alloc is stopped
// and replaced by a pending alloc on node "other".
func (w *world) reschedule() []*structs.Allocation {
	var placed []*structs.Allocation
	for _, a := range w.filter(func(a *structs.Allocation) bool { return migrating(a) && !a.TerminalStatus() }) {
		w.update(a.ID, func(a *structs.Allocation) { a.DesiredStatus = structs.AllocDesiredStatusStop })
		r := w.place(w.jobs[a.JobID], a.TaskGroup, "other")
		w.update(r.ID, func(r *structs.Allocation) {
			r.PreviousAllocation = a.ID
			r.ClientStatus = structs.AllocClientStatusPending
		})
		placed = append(placed, r)
	}
	return placed
}

func (w *world) setHealthy(id string, healthy bool) {
	w.update(id, func(a *structs.Allocation) {
		a.ClientStatus = structs.AllocClientStatusRunning
		a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: &healthy}
	})
}

func (w *world) finish(id string) {
	w.update(id, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusComplete })
}

func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("eval-%d", n) }
}

func ids(allocs []*structs.Allocation) []string {
	out := make([]string, 0, len(allocs))
	for _, a := range allocs {
		out = append(out, a.ID)
	}
	return out
}

func evalJobs(evals []*structs.Evaluation) []string {
	out := make([]string, 0, len(evals))
	for _, e := range evals {
		out = append(out, e.JobID)
	}
	return out
}

func drain(deadline time.Duration) *structs.DrainStrategy {
	ds := &structs.DrainStrategy{Deadline: deadline, StartedAt: t0}
	if deadline > 0 {
		ds.ForceDeadline = t0.Add(deadline)
	}
	return ds
}

func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func TestNodeDrain_MaxParallelOneMigratesOneAllocPerGroupAndWaitsForHealthyReplacement(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", nil), group("ui", nil))
	w.node("n1", drain(time.Hour))
	a1, a2, a3 := w.place(j, "api", "n1"), w.place(j, "api", "n1"), w.place(j, "api", "n1")
	u1, u2 := w.place(j, "ui", "n1"), w.place(j, "ui", "n1")
	d := New(seqIDs())

	act := d.Step(w.input(t0))
	wantIDs(t, "first step marks the lowest ID of each group", ids(act.Migrate), []string{a1.ID, u1.ID})
	w.apply(act)

	steps := []struct {
		name   string
		change func()
		want   []string
	}{
		{"marked but not yet rescheduled", func() {}, nil},
		{"replacement pending", func() { w.reschedule() }, nil},
		{"replacement running but health unknown", func() {
			for _, r := range w.filter(func(a *structs.Allocation) bool { return a.NodeID == "other" }) {
				w.update(r.ID, func(r *structs.Allocation) {
					r.ClientStatus = structs.AllocClientStatusRunning
					r.DeploymentStatus = &structs.AllocDeploymentStatus{}
				})
			}
		}, nil},
		{"api replacement running without health", func() {
			w.update(w.filter(replacementOf(a1.ID))[0].ID, func(r *structs.Allocation) { r.DeploymentStatus = nil })
		}, nil},
		// healthy_deadline passed: the wait ends as for a healthy one (Nomad).
		{"api replacement unhealthy frees api only", func() { w.setHealthy(w.filter(replacementOf(a1.ID))[0].ID, false) }, []string{a2.ID}},
		{"ui replacement healthy frees ui", func() { w.setHealthy(w.filter(replacementOf(u1.ID))[0].ID, true) }, []string{u2.ID}},
		{"both in flight again", func() {}, nil},
		{"both healthy: last api alloc", func() {
			for _, r := range w.reschedule() {
				w.setHealthy(r.ID, true)
			}
		}, []string{a3.ID}},
	}
	for _, s := range steps {
		s.change()
		act := d.Step(w.input(t0))
		wantIDs(t, s.name, ids(act.Migrate), s.want)
		w.apply(act)
	}
}

func replacementOf(id string) func(*structs.Allocation) bool {
	return func(a *structs.Allocation) bool { return a.PreviousAllocation == id }
}

func TestNodeDrain_MaxParallelTwoKeepsTwoMigrationsInFlight(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", &structs.MigrateStrategy{MaxParallel: 2}))
	w.node("n1", drain(0))
	a := []*structs.Allocation{w.place(j, "api", "n1"), w.place(j, "api", "n1"), w.place(j, "api", "n1"), w.place(j, "api", "n1")}
	d := New(seqIDs())

	act := d.Step(w.input(t0))
	wantIDs(t, "first step", ids(act.Migrate), []string{a[0].ID, a[1].ID})
	w.apply(act)
	placed := w.reschedule()
	w.setHealthy(placed[0].ID, true)
	act = d.Step(w.input(t0))
	wantIDs(t, "one healthy replacement frees one slot", ids(act.Migrate), []string{a[2].ID})
}

func TestNodeDrain_JobLevelMigrateAppliesWhenGroupHasNone(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", nil))
	j.Migrate = &structs.MigrateStrategy{MaxParallel: 3}
	w.node("n1", drain(0))
	for range 4 {
		w.place(j, "api", "n1")
	}
	if got := New(seqIDs()).Step(w.input(t0)); len(got.Migrate) != 3 {
		t.Fatalf("marked %d, want 3", len(got.Migrate))
	}
}

// The migrate block that counts is the job's current one, not the copy an
// alloc was placed with: raising max_parallel applies to running allocs.
func TestNodeDrain_CurrentJobVersionsMigrateBlockApplies(t *testing.T) {
	w := newWorld()
	placedWith := w.job("web", structs.JobTypeService, 50, group("api", nil)) // max_parallel 1
	w.node("n1", drain(0))
	for range 3 {
		w.place(placedWith, "api", "n1")
	}
	w.job("web", structs.JobTypeService, 50, group("api", &structs.MigrateStrategy{MaxParallel: 2}))
	if got := New(seqIDs()).Step(w.input(t0)); len(got.Migrate) != 2 {
		t.Fatalf("marked %d, want 2 (the current job's max_parallel)", len(got.Migrate))
	}
}

func TestNodeDrain_MaxParallelZeroWaitsForDeadline(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", &structs.MigrateStrategy{MaxParallel: 0}))
	w.node("n1", drain(time.Hour))
	a := w.place(j, "api", "n1")
	d := New(seqIDs())
	if got := d.Step(w.input(t0)); !got.Empty() {
		t.Fatalf("before deadline: %+v", got)
	}
	wantIDs(t, "at deadline", ids(d.Step(w.input(t0.Add(time.Hour))).Migrate), []string{a.ID})
}

func TestNodeDrain_BudgetIsSharedByDrainingNodesOfTheSameGroup(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", nil))
	w.node("n2", drain(0))
	w.node("n1", drain(0))
	w.place(j, "api", "n2")
	a1 := w.place(j, "api", "n1")
	wantIDs(t, "one migration for the group, on the first node by ID", ids(New(seqIDs()).Step(w.input(t0)).Migrate), []string{a1.ID})
}

func TestEvalTrigger_NodeDrain_OneEvalPerJobOnDrainingNode(t *testing.T) {
	w := newWorld()
	web := w.job("web", structs.JobTypeService, 70, group("api", &structs.MigrateStrategy{MaxParallel: 5}))
	cache := w.job("cache", structs.JobTypeService, 30, group("redis", nil))
	w.node("n1", drain(0))
	w.place(web, "api", "n1")
	w.place(web, "api", "n1")
	w.place(cache, "redis", "n1")

	act := New(seqIDs()).Step(w.input(t0))
	if len(act.Migrate) != 3 {
		t.Fatalf("marked %v", ids(act.Migrate))
	}
	wantIDs(t, "one eval per job, by job ID", evalJobs(act.Evals), []string{"cache", "web"})
	for i, e := range act.Evals {
		job := w.jobs[e.JobID]
		if e.ID != fmt.Sprintf("eval-%d", i+1) || e.Type != job.Type || e.Priority != job.Priority ||
			e.TriggeredBy != structs.EvalTriggerNodeDrain || e.Status != structs.EvalStatusPending ||
			e.NodeID != "" || e.Namespace != "default" || e.CreateTime != t0.UnixNano() {
			t.Fatalf("eval %+v", e)
		}
	}
}

func TestEvalTrigger_NodeDrain_OnlyJobsWithNewlyMarkedAllocsGetEvals(t *testing.T) {
	w := newWorld()
	web := w.job("web", structs.JobTypeService, 50, group("api", nil))
	cache := w.job("cache", structs.JobTypeService, 50, group("redis", nil))
	w.node("n1", drain(0))
	w.place(web, "api", "n1")
	w.place(web, "api", "n1")
	w.place(cache, "redis", "n1")
	d := New(seqIDs())
	w.apply(d.Step(w.input(t0)))
	for _, r := range w.reschedule() {
		if r.JobID == "cache" {
			w.setHealthy(r.ID, true)
		}
	}
	w.place(cache, "redis", "n1") // a new cache alloc, free to go

	act := d.Step(w.input(t0))
	wantIDs(t, "evals", evalJobs(act.Evals), []string{"cache"})
}

func TestNodeDrain_BatchAllocsRunUntilDeadlineThenAreForced(t *testing.T) {
	w := newWorld()
	j := w.job("report", structs.JobTypeBatch, 40, group("run", nil))
	w.node("n1", drain(time.Hour))
	a1, a2 := w.place(j, "run", "n1"), w.place(j, "run", "n1")
	d := New(seqIDs())

	if act := d.Step(w.input(t0.Add(59 * time.Minute))); !act.Empty() {
		t.Fatalf("before deadline: %+v", act)
	}
	act := d.Step(w.input(t0.Add(time.Hour)))
	wantIDs(t, "at deadline all batch allocs at once", ids(act.Migrate), []string{a1.ID, a2.ID})
	if len(act.Evals) != 1 || act.Evals[0].Type != structs.JobTypeBatch || act.Evals[0].Priority != 40 {
		t.Fatalf("evals %+v", act.Evals)
	}
}

func TestNodeDrain_BatchAllocsWithoutDeadlineHoldTheDrainUntilTheyFinish(t *testing.T) {
	w := newWorld()
	j := w.job("report", structs.JobTypeBatch, 50, group("run", nil))
	w.node("n1", drain(0))
	a := w.place(j, "run", "n1")
	d := New(seqIDs())
	if act := d.Step(w.input(t0.Add(1000 * time.Hour))); !act.Empty() {
		t.Fatalf("no deadline: %+v", act)
	}
	w.finish(a.ID)
	wantIDs(t, "done", d.Step(w.input(t0)).Done, []string{"n1"})
}

func TestNodeDrain_SystemAllocsGoLast(t *testing.T) {
	w := newWorld()
	svc := w.job("web", structs.JobTypeService, 50, group("api", nil))
	bat := w.job("report", structs.JobTypeBatch, 50, group("run", nil))
	sys := w.job("logs", structs.JobTypeSystem, 90, group("agent", nil))
	sb := w.job("scan", structs.JobTypeSysBatch, 60, group("once", nil))
	w.node("n1", drain(0))
	web, rep := w.place(svc, "api", "n1"), w.place(bat, "run", "n1")
	lg, sc := w.place(sys, "agent", "n1"), w.place(sb, "once", "n1")
	d := New(seqIDs())

	act := d.Step(w.input(t0))
	wantIDs(t, "service first", ids(act.Migrate), []string{web.ID})
	w.apply(act)
	w.reschedule()
	wantIDs(t, "system waits for batch", ids(d.Step(w.input(t0)).Migrate), nil)
	w.finish(rep.ID)
	act = d.Step(w.input(t0))
	wantIDs(t, "then all system allocs", ids(act.Migrate), []string{lg.ID, sc.ID})
	wantIDs(t, "with their evals", evalJobs(act.Evals), []string{"logs", "scan"})
	if act.Evals[0].Type != structs.JobTypeSystem || act.Evals[1].Type != structs.JobTypeSysBatch {
		t.Fatalf("eval types %s %s", act.Evals[0].Type, act.Evals[1].Type)
	}
	w.apply(act)
	w.reschedule()
	wantIDs(t, "done once system allocs stop", d.Step(w.input(t0)).Done, []string{"n1"})
}

func TestNodeDrain_IgnoreSystemJobsLeavesSystemAllocsAndCompletes(t *testing.T) {
	w := newWorld()
	sys := w.job("logs", structs.JobTypeSystem, 90, group("agent", nil))
	ds := drain(time.Hour)
	ds.IgnoreSystemJobs = true
	w.node("n1", ds)
	w.place(sys, "agent", "n1")
	for _, now := range []time.Time{t0, t0.Add(time.Hour)} {
		act := New(seqIDs()).Step(w.input(now))
		if len(act.Migrate) != 0 || len(act.Evals) != 0 || !slices.Equal(act.Done, []string{"n1"}) {
			t.Fatalf("at %v: %+v", now.Sub(t0), act)
		}
	}
}

func TestNodeDrain_DeadlineForcesEverythingRegardlessOfMaxParallel(t *testing.T) {
	cases := []struct {
		name      string
		drain     *structs.DrainStrategy
		now       time.Time
		ignoreSys bool
		wantAll   bool
	}{
		{"before deadline", drain(time.Hour), t0.Add(time.Hour - time.Nanosecond), false, false},
		{"deadline reached", drain(time.Hour), t0.Add(time.Hour), false, true},
		{"deadline from StartedAt when ForceDeadline unset", &structs.DrainStrategy{Deadline: time.Hour, StartedAt: t0}, t0.Add(time.Hour), false, true},
		{"force drain (Deadline -1) at once", drain(-1), t0, false, true},
		{"force drain still ignores system jobs", drain(-1), t0, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			svc := w.job("web", structs.JobTypeService, 50, group("api", nil))
			bat := w.job("report", structs.JobTypeBatch, 50, group("run", nil))
			sys := w.job("logs", structs.JobTypeSystem, 50, group("agent", nil))
			ds := *tc.drain
			ds.IgnoreSystemJobs = tc.ignoreSys
			w.node("n1", &ds)
			want := []string{w.place(svc, "api", "n1").ID, w.place(svc, "api", "n1").ID, w.place(svc, "api", "n1").ID, w.place(bat, "run", "n1").ID}
			if s := w.place(sys, "agent", "n1"); !tc.ignoreSys {
				want = append(want, s.ID)
			}
			slices.Sort(want)
			act := New(seqIDs()).Step(w.input(tc.now))
			if !tc.wantAll {
				want = []string{firstOf(w, "web")} // max_parallel 1 before the deadline
			}
			got := ids(act.Migrate)
			slices.Sort(got) // the order (service, batch, system) is not the point here
			wantIDs(t, "marked", got, want)
		})
	}
}

func firstOf(w *world, jobID string) string {
	var got []string
	for _, a := range w.allocs {
		if a.JobID == jobID {
			got = append(got, a.ID)
		}
	}
	slices.Sort(got)
	return got[0]
}

func TestNodeDrain_AlreadyMarkedAllocsAreNotMarkedAgain(t *testing.T) {
	for _, now := range []time.Time{t0, t0.Add(time.Hour)} { // before and at the deadline
		w := newWorld()
		j := w.job("web", structs.JobTypeService, 50, group("api", &structs.MigrateStrategy{MaxParallel: 5}))
		w.node("n1", drain(time.Hour))
		w.place(j, "api", "n1")
		w.place(j, "api", "n1")
		d := New(seqIDs())
		w.apply(d.Step(w.input(t0)))
		if !migrating(w.allocs[0]) {
			t.Fatal("first step did not mark")
		}
		a3 := w.place(j, "api", "n1")
		act := d.Step(w.input(now))
		wantIDs(t, "only the new alloc", ids(act.Migrate), []string{a3.ID})
		wantIDs(t, "one eval for it", evalJobs(act.Evals), []string{"web"})
		w.apply(act)
		if act = d.Step(w.input(now)); !act.Empty() {
			t.Fatalf("everything marked: %+v", act)
		}
	}
}

func TestNodeDrain_NodeWithNothingLeftIsDone(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", nil))
	w.node("empty", drain(0))
	w.node("finished", drain(0))
	w.node("stopping", drain(0))
	w.node("busy", drain(0))
	w.node("marked", drain(0))
	w.node("idle", nil) // not draining: never Done
	w.finish(w.place(j, "api", "finished").ID)
	stop := w.place(j, "api", "stopping")
	w.update(stop.ID, func(a *structs.Allocation) { a.DesiredStatus = structs.AllocDesiredStatusStop })
	w.place(j, "api", "busy")
	m := w.place(j, "api", "marked")
	w.apply(Actions{Migrate: []*structs.Allocation{m}})

	act := New(seqIDs()).Step(w.input(t0))
	wantIDs(t, "done", act.Done, []string{"empty", "finished", "stopping"})
}

func TestNodeDrain_IgnoresNodesThatAreNotDraining(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", nil))
	w.node("n1", nil)
	w.place(j, "api", "n1")
	if act := New(seqIDs()).Step(w.input(t0)); !act.Empty() {
		t.Fatalf("%+v", act)
	}
}

func TestNodeDrain_StepDoesNotModifyItsInput(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", nil))
	w.node("n1", drain(-1))
	a := w.place(j, "api", "n1")
	act := New(seqIDs()).Step(w.input(t0))
	if len(act.Migrate) != 1 || act.Migrate[0].DesiredTransition.Migrate != nil || a.DesiredTransition.Migrate != nil {
		t.Fatal("the stored alloc was changed")
	}
}

func TestNodeDrain_JobGoneFromStateUsesTheAllocsCopy(t *testing.T) {
	w := newWorld()
	j := w.job("report", structs.JobTypeBatch, 20, group("run", nil))
	w.node("n1", drain(-1))
	w.place(j, "run", "n1")
	delete(w.jobs, "report")
	act := New(seqIDs()).Step(w.input(t0))
	if len(act.Evals) != 1 || act.Evals[0].Type != structs.JobTypeBatch || act.Evals[0].Priority != 20 {
		t.Fatalf("evals %+v", act.Evals)
	}
}

// TestNodeDrain_SameInputSameOutput shuffles every input order and expects
// byte-identical actions.
func TestNodeDrain_SameInputSameOutput(t *testing.T) {
	build := func(reverse bool) Actions {
		w := newWorld()
		jobs := []*structs.Job{
			w.job("a", structs.JobTypeService, 50, group("g1", nil), group("g2", &structs.MigrateStrategy{MaxParallel: 2})),
			w.job("b", structs.JobTypeService, 50, group("g1", nil)),
			w.job("c", structs.JobTypeSystem, 50, group("g1", nil)),
		}
		for _, n := range []string{"n1", "n2", "n3"} {
			w.node(n, drain(0))
			for _, j := range jobs {
				for _, tg := range j.TaskGroups {
					w.place(j, tg.Name, n)
					w.place(j, tg.Name, n)
				}
			}
		}
		if reverse {
			slices.Reverse(w.nodes)
			slices.Reverse(w.allocs)
		}
		return New(seqIDs()).Step(w.input(t0))
	}
	render := func(a Actions) string {
		var b strings.Builder
		fmt.Fprintln(&b, ids(a.Migrate), a.Done)
		for _, e := range a.Evals {
			fmt.Fprintln(&b, e.ID, e.JobID, e.Type)
		}
		return b.String()
	}
	first := render(build(false))
	for range 5 {
		if got := render(build(true)); got != first {
			t.Fatalf("output depends on input order:\n%s\nvs\n%s", got, first)
		}
	}
	if !strings.Contains(first, "[a-g1-001 a-g2-003 a-g2-004 b-g1-005]") {
		t.Fatalf("unexpected picks: %s", first)
	}
}

func TestInFlight_CountsEachMigrationOnceUntilItsReplacementIsHealthy(t *testing.T) {
	yes, no := true, false
	mk := func(id, prev, client, desired string, marked bool, healthy *bool) *structs.Allocation {
		a := &structs.Allocation{ID: id, TaskGroup: "g", PreviousAllocation: prev, ClientStatus: client, DesiredStatus: desired}
		if marked {
			a.DesiredTransition.Migrate = &yes
		}
		if healthy != nil {
			a.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: healthy}
		}
		return a
	}
	run, stop := structs.AllocDesiredStatusRun, structs.AllocDesiredStatusStop
	running, pending, failed := structs.AllocClientStatusRunning, structs.AllocClientStatusPending, structs.AllocClientStatusFailed
	cases := []struct {
		name   string
		allocs []*structs.Allocation
		want   int
	}{
		{"marked and live", []*structs.Allocation{mk("m", "", running, run, true, nil)}, 1},
		{"marked live with pending replacement counts once", []*structs.Allocation{mk("m", "", running, run, true, nil), mk("r", "m", pending, run, false, nil)}, 1},
		{"stopped with pending replacement", []*structs.Allocation{mk("m", "", running, stop, true, nil), mk("r", "m", pending, run, false, nil)}, 1},
		{"stopped with healthy replacement", []*structs.Allocation{mk("m", "", running, stop, true, nil), mk("r", "m", running, run, false, &yes)}, 0},
		{"replacement running without a health result still counts", []*structs.Allocation{mk("m", "", running, stop, true, nil), mk("r", "m", running, run, false, nil)}, 1},
		{"unhealthy replacement (healthy_deadline passed) no longer counts", []*structs.Allocation{mk("m", "", running, stop, true, nil), mk("r", "m", running, run, false, &no)}, 0},
		{"failed replacement no longer counts", []*structs.Allocation{mk("m", "", running, stop, true, nil), mk("r", "m", failed, run, false, nil)}, 0},
		{"stopped with no replacement", []*structs.Allocation{mk("m", "", running, stop, true, nil)}, 0},
		{"replacement of an unmarked alloc (reschedule) does not count", []*structs.Allocation{mk("m", "", failed, run, false, nil), mk("r", "m", pending, run, false, nil)}, 0},
		{"other groups do not count", []*structs.Allocation{{ID: "x", TaskGroup: "h", DesiredStatus: run, DesiredTransition: structs.DesiredTransition{Migrate: &yes}}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := inFlight(tc.allocs, "g"); got != tc.want {
				t.Fatalf("in flight %d, want %d", got, tc.want)
			}
		})
	}
}

func TestNextDeadline_EarliestForceDeadlineAmongDrainingNodes(t *testing.T) {
	nodes := []*structs.Node{
		{ID: "a", DrainStrategy: drain(2 * time.Hour)},
		{ID: "b", DrainStrategy: drain(time.Hour)},
		{ID: "c", DrainStrategy: drain(0)},  // no deadline
		{ID: "d", DrainStrategy: drain(-1)}, // forced: nothing to wait for
		{ID: "e"},
	}
	if got := NextDeadline(nodes); !got.Equal(t0.Add(time.Hour)) {
		t.Fatalf("next %v", got)
	}
	if got := NextDeadlineAfter(nodes, t0.Add(time.Hour)); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Fatalf("next after first deadline %v", got)
	}
	if got := NextDeadlineAfter(nodes, t0.Add(3*time.Hour)); !got.IsZero() {
		t.Fatalf("all passed: %v", got)
	}
	if got := NextDeadline(nodes[2:]); !got.IsZero() {
		t.Fatalf("no deadlines: %v", got)
	}
}

// TestNodeDrain_DeadlineReevaluatesMigrationsThatFoundNoRoom: allocs
// marked before the deadline whose replacements found no room are still
// running at the deadline. Their job gets one new node-drain eval then (so
// the scheduler stops them now), and no more on later steps.
func TestNodeDrain_DeadlineReevaluatesMigrationsThatFoundNoRoom(t *testing.T) {
	w := newWorld()
	j := w.job("web", structs.JobTypeService, 50, group("api", &structs.MigrateStrategy{MaxParallel: 5}))
	w.node("n1", drain(time.Hour))
	w.place(j, "api", "n1")
	w.place(j, "api", "n1")
	d := New(seqIDs())
	first := d.Step(w.input(t0))
	wantIDs(t, "marked before the deadline", ids(first.Migrate), ids(w.allocs))
	w.apply(first) // the scheduler finds no room: nothing else changes

	if act := d.Step(w.input(t0.Add(time.Minute))); !act.Empty() {
		t.Fatalf("before the deadline: %+v", act)
	}
	at := d.Step(w.input(t0.Add(time.Hour)))
	if len(at.Migrate) != 0 || len(at.Done) != 0 {
		t.Fatalf("at the deadline: %+v", at)
	}
	wantIDs(t, "one eval at the deadline", evalJobs(at.Evals), []string{"web"})
	if at.Evals[0].TriggeredBy != structs.EvalTriggerNodeDrain || at.Evals[0].CreateTime != t0.Add(time.Hour).UnixNano() {
		t.Fatalf("eval %+v", at.Evals[0])
	}
	w.apply(at)
	if act := d.Step(w.input(t0.Add(time.Hour + time.Second))); !act.Empty() {
		t.Fatalf("after the deadline's eval: %+v", act)
	}
}
