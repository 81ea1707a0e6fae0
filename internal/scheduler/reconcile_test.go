package scheduler

import (
	"sort"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// allocsOf builds stored allocs of job's group "web" with the given
// indexes, round-robin over nodes.
func (h *harness) seedAllocs(job *structs.Job, nodes []*structs.Node, idx ...uint) []*structs.Allocation {
	var out []*structs.Allocation
	for i, x := range idx {
		n := nodes[i%len(nodes)]
		out = append(out, &structs.Allocation{
			ID: newID(), Namespace: job.Namespace, EvalID: "seed", Name: structs.AllocName(job.ID, "web", x),
			NodeID: n.ID, NodeName: n.Name, JobID: job.ID, Job: job, TaskGroup: "web",
			AllocatedResources: &structs.AllocatedResources{
				Tasks:  map[string]*structs.AllocatedTaskResources{"web": {CpuShares: 500, MemoryMB: 256}},
				Shared: structs.AllocatedSharedResources{DiskMB: 300},
			},
			DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
			CreateTime: t0.UnixNano(), ModifyTime: t0.UnixNano(),
		})
	}
	h.upsertAllocs(out...)
	return out
}

func namesOf(allocs []*structs.Allocation) []string {
	var out []string
	for _, a := range allocs {
		out = append(out, a.Name)
	}
	sort.Strings(out)
	return out
}

func planned(p *structs.Plan) (placed, stopped []*structs.Allocation) {
	for _, as := range p.NodeAllocation {
		placed = append(placed, as...)
	}
	for _, as := range p.NodeUpdate {
		stopped = append(stopped, as...)
	}
	return placed, stopped
}

func nodes(h *harness, n int) []*structs.Node {
	var out []*structs.Node
	for i := 0; i < n; i++ {
		out = append(out, h.upsertNode(mockNode()))
	}
	return out
}

func TestReconcile_Decisions(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T, h *harness)
	}{
		{"place missing fills lowest free indexes", func(t *testing.T, h *harness) {
			ns := nodes(h, 3)
			job := h.upsertJob(mockJob("web", 4))
			h.seedAllocs(job, ns, 0, 2)
			h.process(mockEval(job, structs.EvalTriggerJobRegister))
			placed, _ := planned(h.plans[0])
			if got := namesOf(placed); len(got) != 2 || got[0] != "web.web[1]" || got[1] != "web.web[3]" {
				t.Fatalf("placed %v", got)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Place != 2 || du.Ignore != 2 {
				t.Fatalf("annotations %+v", du)
			}
		}},
		{"count lowered stops highest indexes", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			job := h.upsertJob(mockJob("web", 2))
			h.seedAllocs(job, ns, 0, 1, 2, 3)
			h.process(mockEval(job, structs.EvalTriggerJobRegister))
			_, stopped := planned(h.plans[0])
			if got := namesOf(stopped); len(got) != 2 || got[0] != "web.web[2]" || got[1] != "web.web[3]" {
				t.Fatalf("stopped %v", got)
			}
			if stopped[0].DesiredDescription != allocNotNeeded {
				t.Fatalf("desc %q", stopped[0].DesiredDescription)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Stop != 2 || du.Ignore != 2 {
				t.Fatalf("annotations %+v, want 2 stops", du)
			}
		}},
		{"job stopped stops all", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			job := h.upsertJob(mockJob("web", 3))
			h.seedAllocs(job, ns, 0, 1, 2)
			stop := job.Copy()
			stop.Stop = true
			stop = h.upsertJob(stop)
			h.process(mockEval(stop, structs.EvalTriggerJobDeregister))
			if live := h.liveAllocs(job); len(live) != 0 {
				t.Fatalf("%d allocs still live", len(live))
			}
			wantStops(t, h.plans[0], "web", 3)
			if h.lastEval().Status != structs.EvalStatusComplete {
				t.Fatal("eval not complete")
			}
		}},
		{"job purged stops all", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 2))
			h.seedAllocs(job, ns, 0, 1)
			h.must(h.store.DeleteJob(h.next(), job.Namespace, job.ID))
			h.process(mockEval(job, structs.EvalTriggerJobDeregister))
			if live := h.liveAllocs(job); len(live) != 0 {
				t.Fatalf("%d allocs still live", len(live))
			}
		}},
		{"reconnected original whose replacement is gone counts again", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			job := mockJob("web", 1)
			job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 10 * time.Minute, Reconcile: structs.ReconcileOptionKeepReplacement}
			job = h.upsertJob(job)
			orig := h.seedAllocs(job, ns[:1], 0)[0]
			repl := h.seedAllocs(job, ns[1:], 0)[0].CopySkipJob()
			repl.Job, repl.PreviousAllocation = job, orig.ID
			repl.DesiredStatus, repl.ClientStatus = structs.AllocDesiredStatusStop, structs.AllocClientStatusFailed
			h.upsertAllocs(repl)
			h.process(mockEval(job, structs.EvalTriggerReconnect))
			var placed, stopped []*structs.Allocation
			for _, p := range h.plans {
				pl, st := planned(p)
				placed, stopped = append(placed, pl...), append(stopped, st...)
			}
			if len(placed) != 0 || len(stopped) != 0 {
				t.Fatalf("the original is the one live alloc and must simply count: placed %v, stopped %v", namesOf(placed), namesOf(stopped))
			}
		}},
		{"reconnected original and live replacement keep one per reconcile", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			job := mockJob("web", 1)
			job.TaskGroups[0].Disconnect = &structs.DisconnectStrategy{LostAfter: 10 * time.Minute, Reconcile: structs.ReconcileOptionKeepReplacement}
			job = h.upsertJob(job)
			orig := h.seedAllocs(job, ns[:1], 0)[0]
			repl := h.seedAllocs(job, ns[1:], 0)[0].CopySkipJob()
			repl.Job, repl.PreviousAllocation = job, orig.ID
			h.upsertAllocs(repl)
			h.process(mockEval(job, structs.EvalTriggerReconnect))
			placed, stopped := planned(h.plans[0])
			if len(placed) != 0 || len(stopped) != 1 || stopped[0].ID != orig.ID || stopped[0].DesiredDescription != allocReconnectedKeptReplacement {
				t.Fatalf("keep_replacement: placed %v, stopped %+v", namesOf(placed), stopped)
			}
		}},
		{"lost alloc on down node is stopped as lost and replaced", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			job := h.upsertJob(mockJob("web", 1))
			old := h.seedAllocs(job, ns[:1], 0)[0]
			h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, structs.NodeStatusDown, t0.Unix(), nil))
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			placed, stopped := planned(h.plans[0])
			if len(stopped) != 1 || stopped[0].ClientStatus != structs.AllocClientStatusLost || stopped[0].DesiredDescription != allocLost {
				t.Fatalf("stopped %+v", stopped)
			}
			if len(placed) != 1 || placed[0].PreviousAllocation != old.ID || placed[0].NodeID != ns[1].ID || placed[0].Name != old.Name {
				t.Fatalf("placed %+v", placed)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Place != 1 || du.Stop != 1 {
				t.Fatalf("annotations %+v, want 1 place and 1 stop", du)
			}
		}},
		{"draining alloc with migrate transition is migrated", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			job := h.upsertJob(mockJob("web", 1))
			old := h.seedAllocs(job, ns[:1], 0)[0]
			h.must(h.store.UpdateNodeDrain(h.next(), ns[0].ID, &structs.DrainStrategy{Deadline: time.Hour}, false, t0.Unix(), nil))
			h.must(h.store.UpdateAllocsDesiredTransitions(h.next(), map[string]*structs.DesiredTransition{old.ID: {Migrate: ptr(true)}}, nil))
			h.process(mockEval(job, structs.EvalTriggerNodeDrain))
			placed, stopped := planned(h.plans[0])
			if len(stopped) != 1 || stopped[0].DesiredDescription != allocMigrating || len(placed) != 1 || placed[0].NodeID != ns[1].ID {
				t.Fatalf("placed %v stopped %v", placed, stopped)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Migrate != 1 {
				t.Fatalf("annotations %+v", du)
			}
		}},
		{"migration with no room keeps the alloc until the drain is forced, then stops it", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 1))
			old := h.seedAllocs(job, ns, 0)[0]
			h.must(h.store.UpdateNodeDrain(h.next(), ns[0].ID, &structs.DrainStrategy{Deadline: time.Hour, StartedAt: h.now, ForceDeadline: h.now.Add(time.Hour)}, false, t0.Unix(), nil))
			h.must(h.store.UpdateAllocsDesiredTransitions(h.next(), map[string]*structs.DesiredTransition{old.ID: {Migrate: ptr(true)}}, nil))
			h.process(mockEval(job, structs.EvalTriggerNodeDrain))
			if len(h.plans) != 0 || h.lastEval().FailedTGAllocs["web"] == nil {
				t.Fatalf("before the deadline: %d plans, failed %v", len(h.plans), h.lastEval().FailedTGAllocs)
			}
			h.now = h.now.Add(time.Hour)
			h.process(mockEval(job, structs.EvalTriggerNodeDrain))
			if len(h.plans) != 1 {
				t.Fatalf("%d plans at the deadline", len(h.plans))
			}
			placed, stopped := planned(h.plans[0])
			if len(placed) != 0 || len(stopped) != 1 || stopped[0].ID != old.ID || stopped[0].DesiredDescription != allocMigrating {
				t.Fatalf("at the deadline: placed %v stopped %v", placed, stopped)
			}
			if h.lastEval().FailedTGAllocs["web"] == nil {
				t.Fatal("the replacement that does not fit is not reported")
			}
		}},
		{"meta-only change is an in-place update", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 1))
			old := h.seedAllocs(job, ns, 0)[0]
			v2 := job.Copy()
			v2.TaskGroups[0].Meta = map[string]string{"owner": "b"}
			v2.TaskGroups[0].Count = 1
			v2 = h.upsertJob(v2)
			h.process(mockEval(v2, structs.EvalTriggerJobRegister))
			placed, stopped := planned(h.plans[0])
			if len(stopped) != 0 || len(placed) != 1 || placed[0].ID != old.ID || placed[0].Job.Version != v2.Version {
				t.Fatalf("placed %v stopped %v", placed, stopped)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.InPlaceUpdate != 1 {
				t.Fatalf("annotations %+v", du)
			}
		}},
		{"config change is a destructive update", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 1))
			old := h.seedAllocs(job, ns, 0)[0]
			v2 := job.Copy()
			v2.TaskGroups[0].Tasks[0].Config = map[string]any{"command": "/bin/web2"}
			v2 = h.upsertJob(v2)
			h.process(mockEval(v2, structs.EvalTriggerJobRegister))
			placed, stopped := planned(h.plans[0])
			if len(stopped) != 1 || stopped[0].ID != old.ID || stopped[0].DesiredDescription != allocUpdating {
				t.Fatalf("stopped %v", stopped)
			}
			if len(placed) != 1 || placed[0].ID == old.ID || placed[0].PreviousAllocation != old.ID || placed[0].Name != old.Name {
				t.Fatalf("placed %+v", placed)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.DestructiveUpdate != 1 {
				t.Fatalf("annotations %+v", du)
			}
		}},
		{"destructive update that cannot be placed keeps the old alloc", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 1))
			h.seedAllocs(job, ns, 0)
			v2 := job.Copy()
			v2.TaskGroups[0].Tasks[0].Resources.MemoryMB = 100000
			v2 = h.upsertJob(v2)
			h.process(mockEval(v2, structs.EvalTriggerJobRegister))
			if len(h.plans) != 0 {
				_, stopped := planned(h.plans[0])
				if len(stopped) != 0 {
					t.Fatalf("stopped %v though the replacement failed", stopped)
				}
			}
			if live := h.liveAllocs(job); len(live) != 1 {
				t.Fatalf("%d live allocs", len(live))
			}
		}},
		{"failed alloc rescheduled now with penalty and tracker", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			j := mockJob("web", 1)
			j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 2, Interval: time.Hour, Delay: 5 * time.Second, DelayFunction: structs.RescheduleDelayConstant}
			job := h.upsertJob(j)
			old := h.seedAllocs(job, ns[:1], 0)[0]
			h.setClient(old, func(a *structs.Allocation) {
				a.ClientStatus = structs.AllocClientStatusFailed
				a.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateDead, Failed: true, FinishedAt: t0.Add(-time.Minute)}}
			})
			h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
			placed, _ := planned(h.plans[0])
			if len(placed) != 1 || placed[0].PreviousAllocation != old.ID || placed[0].NodeID == old.NodeID {
				t.Fatalf("placed %+v (old node %s)", placed, old.NodeID)
			}
			tr := placed[0].RescheduleTracker
			if tr == nil || len(tr.Events) != 1 || tr.Events[0].PrevAllocID != old.ID || tr.Events[0].Delay != 5*time.Second {
				t.Fatalf("tracker %+v", tr)
			}
			if s := placed[0].Metrics.ScoreMetaData; len(s) == 0 {
				t.Fatal("no score metadata")
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Place != 1 || du.Ignore != 0 {
				t.Fatalf("annotations %+v, want 1 place", du)
			}
		}},
		{"failed alloc rescheduled later via follow-up eval", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			j := mockJob("web", 1)
			j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Delay: time.Minute, DelayFunction: structs.RescheduleDelayExponential, MaxDelay: time.Hour, Unlimited: true}
			job := h.upsertJob(j)
			old := h.seedAllocs(job, ns[:1], 0)[0]
			h.setClient(old, func(a *structs.Allocation) {
				a.ClientStatus = structs.AllocClientStatusFailed
				a.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateDead, Failed: true, FinishedAt: t0}}
			})
			e := mockEval(job, structs.EvalTriggerRetryFailedAlloc)
			h.process(e)
			if len(h.created) != 1 {
				t.Fatalf("created %d evals", len(h.created))
			}
			f := h.created[0]
			if f.TriggeredBy != structs.EvalTriggerRetryFailedAlloc || !f.WaitUntil.Equal(t0.Add(time.Minute)) || f.PreviousEval != e.ID || f.Status != structs.EvalStatusPending {
				t.Fatalf("follow-up %+v", f)
			}
			stored, _ := h.store.AllocByID(nil, old.ID)
			if stored.FollowupEvalID != f.ID {
				t.Fatalf("alloc follow-up %q, want %q", stored.FollowupEvalID, f.ID)
			}
			if du := h.plans[0].Annotations.DesiredTGUpdates["web"]; du.Ignore != 1 || du.Place != 0 {
				t.Fatalf("annotations %+v, want the waiting alloc ignored", du)
			}
			// The follow-up, once due, replaces the alloc.
			h.now = t0.Add(time.Minute)
			h.process(f)
			if live := h.liveAllocs(job); len(live) != 1 || live[0].PreviousAllocation != old.ID {
				t.Fatalf("live after follow-up %v", live)
			}
		}},
		{"an eval passing by leaves a failed alloc to its pending follow-up", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			j := mockJob("web", 1)
			j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Delay: time.Minute, DelayFunction: structs.RescheduleDelayConstant, Unlimited: true}
			job := h.upsertJob(j)
			old := h.seedAllocs(job, ns[:1], 0)[0]
			h.setClient(old, func(a *structs.Allocation) {
				a.ClientStatus = structs.AllocClientStatusFailed
				a.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateDead, Failed: true, FinishedAt: t0}}
			})
			h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
			if len(h.created) != 1 {
				t.Fatalf("created %d follow-ups, want 1", len(h.created))
			}
			h.now = t0.Add(10 * time.Second) // before the follow-up is due
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			if len(h.created) != 1 {
				t.Fatalf("a second eval wrote %d more follow-ups for the same failed alloc", len(h.created)-1)
			}
			stored, _ := h.store.AllocByID(nil, old.ID)
			if stored.FollowupEvalID != h.created[0].ID {
				t.Fatalf("alloc follow-up %q, want %q", stored.FollowupEvalID, h.created[0].ID)
			}
			if live := h.liveAllocs(job); len(live) != 0 {
				t.Fatalf("replaced before its follow-up was due: %v", namesOf(live))
			}
		}},
		{"failed alloc past its attempts is not replaced", func(t *testing.T, h *harness) {
			ns := nodes(h, 2)
			j := mockJob("web", 1)
			j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 1, Interval: time.Hour, Delay: time.Second, DelayFunction: structs.RescheduleDelayConstant}
			job := h.upsertJob(j)
			old := h.seedAllocs(job, ns[:1], 0)[0]
			h.setClient(old, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusFailed })
			c := old.CopySkipJob()
			c.RescheduleTracker = &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: t0.Add(-time.Minute).UnixNano(), PrevAllocID: "x", PrevNodeID: ns[1].ID}}}
			h.upsertAllocs(c)
			h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
			if len(h.plans) != 0 || h.lastEval().Status != structs.EvalStatusCanceled {
				t.Fatalf("plans %d, eval %s (a no-op is canceled)", len(h.plans), h.lastEval().Status)
			}
		}},
		{"batch complete allocs are never replaced", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockBatchJob("b", 2))
			done := h.seedAllocs(job, ns, 0, 1)
			for _, a := range done {
				h.setClient(a, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusComplete })
			}
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			if len(h.plans) != 0 {
				t.Fatalf("batch replaced complete allocs: %v", h.plans[0].NodeAllocation)
			}
		}},
		{"service complete allocs are replaced", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 1))
			done := h.seedAllocs(job, ns, 0)[0]
			h.setClient(done, func(a *structs.Allocation) { a.ClientStatus = structs.AllocClientStatusComplete })
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			placed, _ := planned(h.plans[0])
			if len(placed) != 1 || placed[0].Name != done.Name {
				t.Fatalf("placed %v", placed)
			}
		}},
		{"removed group is stopped", func(t *testing.T, h *harness) {
			ns := nodes(h, 1)
			job := h.upsertJob(mockJob("web", 1))
			h.seedAllocs(job, ns, 0)
			v2 := job.Copy()
			v2.TaskGroups[0].Name = "api"
			v2 = h.upsertJob(v2)
			h.process(mockEval(v2, structs.EvalTriggerJobRegister))
			placed, stopped := planned(h.plans[0])
			if len(stopped) != 1 || stopped[0].TaskGroup != "web" || len(placed) != 1 || placed[0].TaskGroup != "api" {
				t.Fatalf("placed %v stopped %v", placed, stopped)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newHarness(t)) })
	}
}

func TestTasksUpdated(t *testing.T) {
	base := mockJob("web", 1).TaskGroups[0]
	cases := []struct {
		name        string
		change      func(tg *structs.TaskGroup)
		destructive bool
	}{
		{"nothing", func(tg *structs.TaskGroup) {}, false},
		{"count", func(tg *structs.TaskGroup) { tg.Count = 7 }, false},
		{"update block", func(tg *structs.TaskGroup) { tg.Update = &structs.UpdateStrategy{MaxParallel: 3} }, false},
		{"migrate block", func(tg *structs.TaskGroup) { tg.Migrate = &structs.MigrateStrategy{MaxParallel: 2} }, false},
		{"reschedule block", func(tg *structs.TaskGroup) { tg.ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 9} }, false},
		{"unused meta", func(tg *structs.TaskGroup) { tg.Meta = map[string]string{"a": "b"} }, false},
		{"interpolated meta", func(tg *structs.TaskGroup) {
			tg.Meta = map[string]string{"a": "b"}
			tg.Tasks[0].Env = map[string]string{"A": "${NOMAD_META_a}"}
		}, true},
		{"driver", func(tg *structs.TaskGroup) { tg.Tasks[0].Driver = "docker" }, true},
		{"config", func(tg *structs.TaskGroup) { tg.Tasks[0].Config["command"] = "/bin/x" }, true},
		{"env", func(tg *structs.TaskGroup) { tg.Tasks[0].Env = map[string]string{"X": "1"} }, true},
		{"resources", func(tg *structs.TaskGroup) { tg.Tasks[0].Resources.CPU = 900 }, true},
		{"artifact", func(tg *structs.TaskGroup) {
			tg.Tasks[0].Artifacts = []*structs.TaskArtifact{{GetterSource: "http://x"}}
		}, true},
		{"template", func(tg *structs.TaskGroup) { tg.Tasks[0].Templates = []*structs.Template{{DestPath: "a"}} }, true},
		{"constraint", func(tg *structs.TaskGroup) {
			tg.Constraints = []*structs.Constraint{{LTarget: "${attr.a}", RTarget: "b", Operand: "="}}
		}, true},
		{"network", func(tg *structs.TaskGroup) {
			tg.Networks = []*structs.NetworkResource{{DynamicPorts: []structs.Port{{Label: "http"}}}}
		}, true},
		{"task added", func(tg *structs.TaskGroup) { tg.Tasks = append(tg.Tasks, &structs.Task{Name: "side"}) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := base.Copy()
			tc.change(b)
			if got := tasksUpdated(base, b); got != tc.destructive {
				t.Fatalf("tasksUpdated = %v, want %v", got, tc.destructive)
			}
		})
	}
}

func TestRescheduleDelay_Functions(t *testing.T) {
	ev := func(d ...time.Duration) *structs.RescheduleTracker {
		tr := &structs.RescheduleTracker{}
		for _, x := range d {
			tr.Events = append(tr.Events, &structs.RescheduleEvent{Delay: x})
		}
		return tr
	}
	s := time.Second
	cases := []struct {
		fn    string
		prior []time.Duration
		max   time.Duration
		want  time.Duration
	}{
		{structs.RescheduleDelayConstant, nil, 0, 5 * s},
		{structs.RescheduleDelayConstant, []time.Duration{5 * s}, 0, 5 * s},
		{structs.RescheduleDelayExponential, nil, 0, 5 * s},
		{structs.RescheduleDelayExponential, []time.Duration{5 * s, 10 * s}, 0, 20 * s},
		{structs.RescheduleDelayExponential, []time.Duration{40 * s}, 60 * s, 60 * s},
		{structs.RescheduleDelayFibonacci, []time.Duration{5 * s}, 0, 5 * s},
		{structs.RescheduleDelayFibonacci, []time.Duration{5 * s, 5 * s, 10 * s}, 0, 15 * s},
		{structs.RescheduleDelayFibonacci, []time.Duration{5 * s, 5 * s}, 0, 10 * s},
	}
	for _, tc := range cases {
		p := &structs.ReschedulePolicy{Delay: 5 * s, DelayFunction: tc.fn, MaxDelay: tc.max, Unlimited: true}
		if got := nextRescheduleDelay(p, ev(tc.prior...)); got != tc.want {
			t.Errorf("%s after %v: %v, want %v", tc.fn, tc.prior, got, tc.want)
		}
	}
}

// TestReconcile_ScaleDownDropsTheAllocThatNeedsReplacing checks that when
// the count is lowered, an alloc that would need a replacement (lost,
// migrating, failed and due for rescheduling) is the one let go, before
// any healthy alloc with a higher index: nothing is placed.
func TestReconcile_ScaleDownDropsTheAllocThatNeedsReplacing(t *testing.T) {
	cases := []struct {
		name string
		// broken makes alloc web[0] (on ns[0]) need a replacement.
		broken func(h *harness, ns []*structs.Node, a *structs.Allocation)
		// stopped is how web[0] must appear in the plan's stops ("" for a
		// failed alloc: it is finished already, so it is not stopped).
		stopped string
	}{
		{"lost", func(h *harness, ns []*structs.Node, a *structs.Allocation) {
			h.must(h.store.UpdateNodeStatus(h.next(), ns[0].ID, structs.NodeStatusDown, t0.Unix(), nil))
		}, structs.AllocClientStatusLost},
		{"migrating", func(h *harness, ns []*structs.Node, a *structs.Allocation) {
			h.must(h.store.UpdateNodeDrain(h.next(), ns[0].ID, &structs.DrainStrategy{Deadline: time.Hour}, false, t0.Unix(), nil))
			h.must(h.store.UpdateAllocsDesiredTransitions(h.next(), map[string]*structs.DesiredTransition{a.ID: {Migrate: ptr(true)}}, nil))
		}, structs.AllocClientStatusRunning},
		{"failed, rescheduled now", func(h *harness, ns []*structs.Node, a *structs.Allocation) {
			h.setClient(a, func(a *structs.Allocation) {
				a.ClientStatus = structs.AllocClientStatusFailed
				a.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateDead, Failed: true, FinishedAt: t0.Add(-time.Minute)}}
			})
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ns := nodes(h, 3)
			j := mockJob("web", 3)
			j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 2, Interval: time.Hour, Delay: 5 * time.Second, DelayFunction: structs.RescheduleDelayConstant}
			job := h.upsertJob(j)
			allocs := h.seedAllocs(job, ns, 0, 1, 2)
			tc.broken(h, ns, allocs[0])
			scaled := job.Copy()
			scaled.TaskGroups[0].Count = 2
			scaled = h.upsertJob(scaled)
			h.process(mockEval(scaled, structs.EvalTriggerJobRegister))
			var placed, stopped []*structs.Allocation
			for _, p := range h.plans {
				pl, st := planned(p)
				placed, stopped = append(placed, pl...), append(stopped, st...)
			}
			for _, a := range placed {
				if a.PreviousAllocation != "" || a.Name == "web.web[0]" {
					t.Fatalf("placed %s replacing %q: web[0] should have been let go", a.Name, a.PreviousAllocation)
				}
			}
			for _, a := range stopped {
				if a.ID != allocs[0].ID {
					t.Fatalf("stopped %s, want only web[0] gone", a.Name)
				}
				if a.ClientStatus != tc.stopped || a.DesiredDescription != allocNotNeeded {
					t.Fatalf("web[0] stopped as %q (%q), want %q", a.ClientStatus, a.DesiredDescription, tc.stopped)
				}
			}
			wantStops := 1
			if tc.stopped == "" {
				wantStops = 0
			}
			if len(stopped) != wantStops {
				t.Fatalf("stopped %v, want %d stop of web[0]", namesOf(stopped), wantStops)
			}
		})
	}
}

// failedWebAllocs seeds count failed allocs of job's group web, the i-th
// finished at finished[i].
func failedWebAllocs(h *harness, job *structs.Job, ns []*structs.Node, finished ...time.Time) []*structs.Allocation {
	var idx []uint
	for i := range finished {
		idx = append(idx, uint(i))
	}
	allocs := h.seedAllocs(job, ns, idx...)
	for i, a := range allocs {
		h.setClient(a, func(a *structs.Allocation) {
			a.ClientStatus = structs.AllocClientStatusFailed
			a.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateDead, Failed: true, FinishedAt: finished[i]}}
		})
	}
	return allocs
}

func followUpJob(h *harness, count int) *structs.Job {
	j := mockJob("web", count)
	j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Delay: time.Minute, DelayFunction: structs.RescheduleDelayConstant, Unlimited: true}
	return h.upsertJob(j)
}

// TestReconcile_FollowUpsBatchedByWindow checks that failed allocs due
// within followUpBatchWindow of the first of a batch share its follow-up
// eval, and one due later starts the next.
func TestReconcile_FollowUpsBatchedByWindow(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job := followUpJob(h, 4)
	allocs := failedWebAllocs(h, job, ns, t0, t0, t0.Add(followUpBatchWindow), t0.Add(followUpBatchWindow+time.Millisecond))
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	if len(h.created) != 2 {
		t.Fatalf("created %d follow-ups, want 2", len(h.created))
	}
	first, second := h.created[0], h.created[1]
	if !first.WaitUntil.Equal(t0.Add(time.Minute)) || !second.WaitUntil.Equal(t0.Add(time.Minute+followUpBatchWindow+time.Millisecond)) {
		t.Fatalf("follow-ups due at %v and %v", first.WaitUntil, second.WaitUntil)
	}
	for i, want := range []string{first.ID, first.ID, first.ID, second.ID} {
		stored, _ := h.store.AllocByID(nil, allocs[i].ID)
		if stored.FollowupEvalID != want {
			t.Errorf("alloc %d follows up with %q, want %q", i, stored.FollowupEvalID, want)
		}
	}
}

// TestReconcile_FollowUpReusedAcrossPlanAttempts checks that a rejected
// plan's retry points the failed alloc at the follow-up eval the first
// attempt wrote, instead of writing another.
func TestReconcile_FollowUpReusedAcrossPlanAttempts(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job := followUpJob(h, 1)
	old := failedWebAllocs(h, job, ns, t0)[0]
	h.rejectPlans = 1
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	if len(h.plans) != 2 || len(h.created) != 1 {
		t.Fatalf("%d plans, %d follow-ups written, want 2 and 1", len(h.plans), len(h.created))
	}
	stored, _ := h.store.AllocByID(nil, old.ID)
	if stored.FollowupEvalID != h.created[0].ID {
		t.Fatalf("alloc follows up with %q, want %q", stored.FollowupEvalID, h.created[0].ID)
	}
}

// TestReconcile_FollowUpDueAlthoughTheClockLags checks that the follow-up
// eval of a failed alloc replaces it even when the worker's clock is a
// little behind the reschedule time, instead of writing another follow-up.
func TestReconcile_FollowUpDueAlthoughTheClockLags(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 2)
	job := followUpJob(h, 1)
	old := failedWebAllocs(h, job, ns, t0)[0]
	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	if len(h.created) != 1 {
		t.Fatalf("created %d follow-ups", len(h.created))
	}
	f := h.created[0]
	h.now = f.WaitUntil.Add(-5 * time.Second) // past rescheduleWindow
	h.process(f)
	if len(h.created) != 1 {
		t.Fatalf("the follow-up wrote another follow-up")
	}
	if live := h.liveAllocs(job); len(live) != 1 || live[0].PreviousAllocation != old.ID {
		t.Fatalf("live after the follow-up: %v", namesOf(live))
	}
}

func TestRecentReschedules(t *testing.T) {
	now := t0
	tracker := func(ago ...time.Duration) *structs.RescheduleTracker {
		tr := &structs.RescheduleTracker{}
		for _, d := range ago {
			tr.Events = append(tr.Events, &structs.RescheduleEvent{RescheduleTime: now.Add(-d).UnixNano()})
		}
		return tr
	}
	cases := []struct {
		name     string
		tracker  *structs.RescheduleTracker
		interval time.Duration
		want     int
	}{
		{"no history", nil, time.Hour, 0},
		{"one inside, one outside the interval", tracker(2*time.Hour, 10*time.Minute), time.Hour, 1},
		{"exactly one interval ago is outside", tracker(time.Hour), time.Hour, 0},
		{"no interval counts every event", tracker(48*time.Hour, time.Minute), 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &structs.Allocation{RescheduleTracker: tc.tracker}
			if got := recentReschedules(a, tc.interval, now); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestFailTime(t *testing.T) {
	now := t0
	cases := []struct {
		name  string
		alloc *structs.Allocation
		want  time.Time
	}{
		{"latest task finish", &structs.Allocation{ModifyTime: now.UnixNano(), TaskStates: map[string]*structs.TaskState{
			"a": {FinishedAt: now.Add(-3 * time.Minute)}, "b": {FinishedAt: now.Add(-time.Minute)}, "c": nil,
		}}, now.Add(-time.Minute)},
		{"no finished task: last change", &structs.Allocation{ModifyTime: now.Add(-2 * time.Minute).UnixNano()}, now.Add(-2 * time.Minute)},
		{"nothing known: now", &structs.Allocation{}, now},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := failTime(tc.alloc, now); !got.Equal(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestReconcile_DuplicateNameKeepsTheOldest checks that of two live allocs
// with the same name, the older one is kept and the newer stopped,
// whichever of them the state lists first (it lists by ID).
func TestReconcile_DuplicateNameKeepsTheOldest(t *testing.T) {
	for _, tc := range []struct{ name, oldID, newID string }{
		{"older listed first", "a-old", "b-new"},
		{"older listed second", "b-old", "a-new"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ns := nodes(h, 2)
			job := h.upsertJob(mockJob("web", 1))
			old := mock.Alloc(tc.oldID, job, ns[0].ID)
			old.ClientStatus = structs.AllocClientStatusRunning
			h.upsertAllocs(old)
			dup := mock.Alloc(tc.newID, job, ns[1].ID)
			dup.ClientStatus = structs.AllocClientStatusRunning
			h.upsertAllocs(dup) // created at a later index
			h.process(mockEval(job, structs.EvalTriggerNodeUpdate))
			if len(h.plans) != 1 {
				t.Fatalf("%d plans", len(h.plans))
			}
			placed, stopped := planned(h.plans[0])
			if len(placed) != 0 || len(stopped) != 1 || stopped[0].ID != tc.newID {
				t.Fatalf("placed %v stopped %v, want only %s stopped", namesOf(placed), stopped, tc.newID)
			}
		})
	}
}

// TestReconcile_ReplacedAllocWithoutLinkIsFinished checks that a failed
// alloc which already has a replacement is not rescheduled again even when
// its NextAllocation link is missing (state written without the plan
// applier's link): the replacement's line goes on, not the original's.
func TestReconcile_ReplacedAllocWithoutLinkIsFinished(t *testing.T) {
	h := newHarness(t)
	ns := nodes(h, 3)
	j := mockJob("web", 1)
	j.TaskGroups[0].ReschedulePolicy = &structs.ReschedulePolicy{Attempts: 3, Interval: time.Hour, Delay: 5 * time.Second, DelayFunction: structs.RescheduleDelayConstant}
	job := h.upsertJob(j)
	failed := func(a *structs.Allocation, at time.Time) {
		a.ClientStatus = structs.AllocClientStatusFailed
		a.TaskStates = map[string]*structs.TaskState{"web": {State: structs.TaskStateDead, Failed: true, FinishedAt: at}}
	}
	orig := mock.Alloc("orig", job, ns[0].ID)
	failed(orig, t0.Add(-2*time.Minute))
	h.upsertAllocs(orig)
	repl := mock.Alloc("repl", job, ns[1].ID)
	repl.PreviousAllocation = orig.ID
	repl.RescheduleTracker = &structs.RescheduleTracker{Events: []*structs.RescheduleEvent{{RescheduleTime: t0.Add(-2 * time.Minute).UnixNano(), PrevAllocID: orig.ID, PrevNodeID: ns[0].ID, Delay: 5 * time.Second}}}
	failed(repl, t0.Add(-time.Minute))
	h.upsertAllocs(repl) // orig.NextAllocation stays unset

	h.process(mockEval(job, structs.EvalTriggerRetryFailedAlloc))
	placed, _ := planned(h.plans[0])
	if len(placed) != 1 || placed[0].PreviousAllocation != repl.ID {
		t.Fatalf("placed %+v, want one replacement of %s", placed, repl.ID)
	}
	if tr := placed[0].RescheduleTracker; tr == nil || len(tr.Events) != 2 {
		t.Fatalf("tracker %+v, want the replacement's history plus this reschedule", tr)
	}
}
