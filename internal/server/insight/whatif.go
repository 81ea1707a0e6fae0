package insight

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/server/drainer"
	"github.com/drover-project/drover/internal/structs"
)

// What-if kinds.
const (
	WhatIfDrain  = "drain"
	WhatIfDown   = "down"
	WhatIfDownDC = "down-dc"
)

// maxWhatIfEvals bounds the scheduler runs of one what-if.
const maxWhatIfEvals = 100_000

// WhatIf applies a hypothetical change to an overlay of the state and runs
// what the cluster would run until nothing is left to do: the real drainer
// step (max_parallel batches, system allocs last, batch allocs at the
// deadline) and the real schedulers for every eval, with replacements
// reported healthy at once, as clients would. It reports the allocs that
// move, those left unplaced with the reason, and the number of evals.
// Nothing is written.
func WhatIf(st scheduler.State, d Deps, req *structs.WhatIfRequest) (*structs.WhatIfResponse, error) {
	w, err := newWhatIf(st, d, req)
	if err != nil {
		return nil, err
	}
	if err := w.run(); err != nil {
		return nil, err
	}
	return w.report()
}

type whatIf struct {
	d        Deps
	req      *structs.WhatIfRequest
	base     scheduler.State
	ov       *overlay
	ids      *ids
	now      time.Time
	targets  []*structs.Node
	before   []*structs.Allocation // live allocs on the targets at the start
	queue    []*structs.Evaluation
	evals    int
	lastEval map[structs.NamespacedID]*structs.Evaluation
}

func newWhatIf(st scheduler.State, d Deps, req *structs.WhatIfRequest) (*whatIf, error) {
	w := &whatIf{d: d, req: req, base: st, ov: newOverlay(st), ids: newIDs(d.Seed, "whatif"), now: d.now(),
		lastEval: map[structs.NamespacedID]*structs.Evaluation{}}
	nodes, _, err := st.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	switch req.Kind {
	case WhatIfDrain, WhatIfDown:
		if len(req.Nodes) == 0 {
			return nil, badInput("Nodes: %s needs at least one node", req.Kind)
		}
		for _, q := range req.Nodes {
			var found *structs.Node
			for _, n := range nodes {
				if matchNode(n, q) {
					if found != nil && found.ID != n.ID {
						return nil, badInput("Nodes: %q matches more than one node", q)
					}
					found = n
				}
			}
			if found == nil {
				return nil, badInput("Nodes: no node %q", q)
			}
			if !slices.ContainsFunc(w.targets, func(n *structs.Node) bool { return n.ID == found.ID }) {
				w.targets = append(w.targets, found)
			}
		}
	case WhatIfDownDC:
		if req.Datacenter == "" {
			return nil, badInput("Datacenter: down-dc needs a datacenter")
		}
		for _, n := range nodes {
			if n.Datacenter == req.Datacenter {
				w.targets = append(w.targets, n)
			}
		}
		if len(w.targets) == 0 {
			return nil, badInput("Datacenter: no node in datacenter %q", req.Datacenter)
		}
	default:
		return nil, badInput("Kind: unknown what-if %q (drain, down or down-dc)", req.Kind)
	}
	for _, n := range w.targets {
		allocs, err := st.AllocsByNodeTerminal(nil, n.ID, false)
		if err != nil {
			return nil, err
		}
		w.before = append(w.before, allocs...)
	}
	slices.SortFunc(w.before, func(a, b *structs.Allocation) int { return cmp.Compare(a.ID, b.ID) })
	return w, nil
}

// run applies the change and steps the drainer, the schedulers and the
// "clients" until quiet.
func (w *whatIf) run() error {
	drain := w.req.Kind == WhatIfDrain
	for _, n := range w.targets {
		c := n.Copy()
		if drain {
			c.DrainStrategy = &structs.DrainStrategy{Deadline: w.req.Deadline, IgnoreSystemJobs: w.req.IgnoreSystemJobs, StartedAt: w.now}
			if w.req.Deadline > 0 {
				c.DrainStrategy.ForceDeadline = w.now.Add(w.req.Deadline)
			}
			c.SchedulingEligibility = structs.NodeSchedulingIneligible
		} else {
			c.Status = structs.NodeStatusDown
		}
		w.ov.setNode(n.ID, c)
	}
	if !drain {
		w.queueJobsOf(w.before, structs.EvalTriggerNodeUpdate)
	}
	dr := drainer.New(w.ids.next)
	forcedAt := time.Time{}
	for {
		progress := false
		if drain {
			now := w.now
			if !forcedAt.IsZero() {
				now = forcedAt
			}
			acts := dr.Step(w.drainInput(now))
			progress = !acts.Empty()
			w.applyDrain(acts)
		}
		for len(w.queue) > 0 {
			e := w.queue[0]
			w.queue = w.queue[1:]
			if err := w.process(e); err != nil {
				return err
			}
			progress = true
		}
		if w.settleClients() {
			progress = true
		}
		if !progress {
			if drain && forcedAt.IsZero() && w.req.Deadline != 0 && w.stillDraining() {
				forcedAt = w.now.Add(max(w.req.Deadline, 0) + time.Second) // the deadline passes
				w.d.Now = func() time.Time { return forcedAt }
				continue
			}
			return nil
		}
		if w.evals > maxWhatIfEvals {
			return fmt.Errorf("what-if did not settle within %d evals", maxWhatIfEvals)
		}
	}
}

func (w *whatIf) stillDraining() bool {
	for _, n := range w.targets {
		if cur, _ := w.ov.NodeByID(nil, n.ID); cur != nil && cur.DrainStrategy != nil {
			return true
		}
	}
	return false
}

func (w *whatIf) drainInput(now time.Time) drainer.Input {
	nodes, _, _ := w.ov.NodeSet(nil)
	return drainer.Input{
		Now: now, Nodes: nodes,
		AllocsByNode: func(id string) []*structs.Allocation { a, _ := w.ov.AllocsByNode(nil, id); return a },
		AllocsByJob:  func(ns, id string) []*structs.Allocation { a, _ := w.ov.AllocsByJob(nil, ns, id, true); return a },
		Job:          func(ns, id string) *structs.Job { j, _ := w.ov.JobByID(nil, ns, id); return j },
		EvalsByJob: func(ns, id string) []*structs.Evaluation {
			if e := w.lastEval[structs.NamespacedID{Namespace: ns, ID: id}]; e != nil {
				return []*structs.Evaluation{e}
			}
			return nil
		},
	}
}

// applyDrain writes a drainer step as the leader would: Migrate marks,
// the evals queued, finished nodes' drain strategies cleared.
func (w *whatIf) applyDrain(acts drainer.Actions) {
	if len(acts.Migrate) > 0 {
		w.ov.next()
	}
	for _, a := range acts.Migrate {
		cur, _ := w.ov.AllocByID(nil, a.ID)
		c := cur.CopySkipJob()
		migrate := true
		c.DesiredTransition = structs.DesiredTransition{Migrate: &migrate}
		c.ModifyIndex = w.ov.LatestIndex()
		w.ov.put(c)
	}
	w.queue = append(w.queue, acts.Evals...)
	for _, id := range acts.Done {
		n, _ := w.ov.NodeByID(nil, id)
		c := n.Copy()
		c.DrainStrategy = nil
		w.ov.setNode(id, c)
	}
}

// queueJobsOf queues one eval per job of the allocs, in job order.
func (w *whatIf) queueJobsOf(allocs []*structs.Allocation, trigger string) {
	seen := map[structs.NamespacedID]bool{}
	var jobs []*structs.Job
	for _, a := range allocs {
		k := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
		if seen[k] {
			continue
		}
		seen[k] = true
		if j, _ := w.ov.JobByID(nil, a.Namespace, a.JobID); j != nil {
			jobs = append(jobs, j)
		}
	}
	slices.SortFunc(jobs, func(a, b *structs.Job) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.ID, b.ID))
	})
	for _, j := range jobs {
		w.queue = append(w.queue, jobEval(w.ids, j, trigger, w.now))
	}
}

// process runs one eval, committing its plans; pending follow-ups (not
// delayed) are queued, blocked ones recorded through the final eval.
func (w *whatIf) process(e *structs.Evaluation) error {
	w.evals++
	if e.Type == "" {
		e.Type = structs.JobTypeService
	}
	c, err := run(w.ov, w.d, w.ids, e, true)
	if err != nil {
		return fmt.Errorf("eval %s of job %s: %w", e.ID, e.JobID, err)
	}
	final := c.final
	if final == nil {
		final = e
	}
	w.lastEval[structs.NamespacedID{Namespace: e.Namespace, ID: e.JobID}] = final
	for _, f := range c.created {
		if f.Status == structs.EvalStatusPending && f.WaitUntil.IsZero() {
			w.queue = append(w.queue, f)
		}
	}
	return nil
}

// settleClients plays the clients: new placements run and are healthy,
// stopped allocs complete. It reports whether it changed anything.
func (w *whatIf) settleClients() bool {
	changed := false
	ids := sortedKeys(w.ov.allocs)
	for _, id := range ids {
		a := w.ov.allocs[id]
		switch {
		case a.ServerTerminalStatus() && !a.ClientTerminalStatus():
			c := a.CopySkipJob()
			c.ClientStatus = structs.AllocClientStatusComplete
			w.ov.put(c)
			changed = true
		case !a.ServerTerminalStatus() && a.ClientStatus == structs.AllocClientStatusPending:
			c := a.CopySkipJob()
			c.ClientStatus = structs.AllocClientStatusRunning
			healthy := true
			c.DeploymentStatus = &structs.AllocDeploymentStatus{Healthy: &healthy, Timestamp: w.now}
			w.ov.put(c)
			changed = true
		}
	}
	return changed
}

// report compares the allocs of the targets before and after.
func (w *whatIf) report() (*structs.WhatIfResponse, error) {
	out := &structs.WhatIfResponse{Kind: w.req.Kind, Evals: w.evals}
	for _, n := range w.targets {
		out.Nodes = append(out.Nodes, n.Name)
	}
	replacement := map[string]*structs.Allocation{}
	for _, id := range w.ov.added {
		a := w.ov.allocs[id]
		if a.PreviousAllocation != "" && !a.ServerTerminalStatus() {
			replacement[a.PreviousAllocation] = a
		}
	}
	_, nodeMap, err := w.ov.NodeSet(nil)
	if err != nil {
		return nil, err
	}
	name := func(id string) string {
		if n := nodeMap[id]; n != nil {
			return n.Name
		}
		if n, _ := w.base.NodeByID(nil, id); n != nil {
			return n.Name
		}
		return id
	}
	for _, a := range w.before {
		cur, _ := w.ov.AllocByID(nil, a.ID)
		if cur == nil || !cur.ServerTerminalStatus() {
			continue
		}
		m := &structs.WhatIfMove{AllocID: a.ID, Name: a.Name, Namespace: a.Namespace, JobID: a.JobID, Group: a.TaskGroup, From: name(a.NodeID)}
		r := replacement[a.ID]
		for r != nil && w.isTarget(r.NodeID) && replacement[r.ID] != nil {
			r = replacement[r.ID] // a replacement placed on a target that moved again
		}
		if r != nil {
			m.To = name(r.NodeID)
			out.Moves = append(out.Moves, m)
			continue
		}
		out.Stopped = append(out.Stopped, m)
	}
	// Unplaced: per group, the allocs still on a changed node (a drain
	// that cannot finish) and those missing from the group's count.
	type groupKey struct{ ns, job, group string }
	missing := map[groupKey]int{}
	jobs := map[structs.NamespacedID]bool{}
	for _, a := range w.before {
		jobs[structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}] = true
		if cur, _ := w.ov.AllocByID(nil, a.ID); cur != nil && !cur.TerminalStatus() && (w.req.Kind == WhatIfDrain) {
			missing[groupKey{a.Namespace, a.JobID, a.TaskGroup}]++
		}
	}
	for k := range jobs {
		job, _ := w.ov.JobByID(nil, k.Namespace, k.ID)
		if job == nil || job.Stop || job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch {
			continue
		}
		allocs, err := w.ov.AllocsByJob(nil, k.Namespace, k.ID, false)
		if err != nil {
			return nil, err
		}
		for _, tg := range job.TaskGroups {
			live := 0
			for _, a := range allocs {
				if a.TaskGroup == tg.Name && !a.TerminalStatus() && !(w.req.Kind == WhatIfDrain && w.isTarget(a.NodeID)) {
					live++
				}
			}
			stuck := missing[groupKey{k.Namespace, k.ID, tg.Name}]
			missing[groupKey{k.Namespace, k.ID, tg.Name}] = max(stuck, tg.Count-live)
		}
	}
	keys := make([]groupKey, 0, len(missing))
	for k, n := range missing {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b groupKey) int {
		return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.job, b.job), cmp.Compare(a.group, b.group))
	})
	for _, k := range keys {
		u := &structs.WhatIfUnplaced{Namespace: k.ns, JobID: k.job, Group: k.group, Count: missing[k]}
		job, _ := w.ov.JobByID(nil, k.ns, k.job)
		switch {
		case job == nil:
		case job.Type == structs.JobTypeSystem || job.Type == structs.JobTypeSysBatch:
			u.Reason = "system allocs leave a draining node only after every other alloc has"
		default:
			if diag, err := scheduler.DiagnoseGroup(w.ov, job, k.group); err == nil {
				if f := fixes(diag); len(f) > 0 {
					u.Reason = f[0]
				}
			}
			if dep, _ := w.ov.LatestDeploymentByJobID(nil, k.ns, k.job); dep != nil && dep.Active() {
				out.BlockedDeployments = append(out.BlockedDeployments, k.ns+"/"+k.job)
			}
		}
		out.Unplaced = append(out.Unplaced, u)
	}
	slices.Sort(out.BlockedDeployments)
	out.BlockedDeployments = slices.Compact(out.BlockedDeployments)
	return out, nil
}

func (w *whatIf) isTarget(nodeID string) bool {
	return slices.ContainsFunc(w.targets, func(n *structs.Node) bool { return n.ID == nodeID })
}
