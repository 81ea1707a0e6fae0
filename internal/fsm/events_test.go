package fsm

import (
	"fmt"
	"sort"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

type recordingPublisher struct{ batches []*structs.Events }

func (r *recordingPublisher) Publish(b *structs.Events) { r.batches = append(r.batches, b) }

// summary lists a batch's events as "Topic/Type/Key", sorted.
func summary(b *structs.Events) []string {
	var out []string
	for _, e := range b.Events {
		if e.Index != b.Index {
			panic("event index differs from its batch")
		}
		out = append(out, fmt.Sprintf("%s/%s/%s", e.Topic, e.Type, e.Key))
	}
	sort.Strings(out)
	return out
}

func TestFSM_PublishesEachEntrysChangesAsEvents(t *testing.T) {
	f := newTestFSM(t)
	pub := &recordingPublisher{}
	f.SetEventPublisher(pub)
	populate(t, f)
	// Past populate's entries (its ACL entries at 19-23 publish too).
	applyEntry(t, f, 30, structs.JobDeregisterRequestType, &structs.JobDeregisterRequest{Namespace: "default", JobID: "web", Purge: true})
	applyEntry(t, f, 31, structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Evals: []string{"e2"}})

	want := map[uint64][]string{
		10: {"Evaluation/JobRegistered/e1", "Job/JobRegistered/web"},
		11: {"Node/NodeRegistration/n1"},
		12: {"Allocation/PlanResult/a1", "Deployment/PlanResult/d1", "Job/PlanResult/web"},
		20: {"ACLPolicy/ACLPolicyDeleted/gone"},
		21: {"ACLToken/ACLTokenUpserted/00000000-0000-0000-0000-000000000001"},
		30: {"Job/JobDeregistered/web"},
		31: {"Evaluation/EvaluationDeleted/e2"},
	}
	seen := map[uint64]bool{}
	for _, b := range pub.batches {
		w, ok := want[b.Index]
		if !ok {
			continue
		}
		seen[b.Index] = true
		if got := summary(b); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("index %d: events %v, want %v", b.Index, got, w)
		}
	}
	for idx := range want {
		if !seen[idx] {
			t.Errorf("no batch for index %d", idx)
		}
	}
	last := pub.batches[len(pub.batches)-2]
	if p, ok := last.Events[0].Payload.(*structs.JobEvent); !ok || !p.Deleted || p.Job.ID != "web" {
		t.Errorf("purge payload %#v, want the deleted job", last.Events[0].Payload)
	}
}

func TestFSM_WithoutPublisherTracksNothing(t *testing.T) {
	f := newTestFSM(t)
	pub := &recordingPublisher{}
	f.SetEventPublisher(pub)
	f.SetEventPublisher(nil)
	populate(t, f)
	if len(pub.batches) != 0 {
		t.Fatalf("published %d batches after the publisher was removed", len(pub.batches))
	}
}

// BenchmarkApplyPlanWithEvents measures what publishing events adds to an
// applied plan of 100 allocs: change tracking and one event per alloc.
func BenchmarkApplyPlanWithEvents(b *testing.B) {
	for _, publish := range []bool{false, true} {
		b.Run(fmt.Sprintf("events=%v", publish), func(b *testing.B) {
			f, err := New(nil)
			if err != nil {
				b.Fatal(err)
			}
			if publish {
				f.SetEventPublisher(discardPublisher{})
			}
			job := mock.Job("web")
			if err := f.State().UpsertJob(1, 1, job); err != nil {
				b.Fatal(err)
			}
			stored, _ := f.State().JobByID(nil, "default", "web")
			index := uint64(2)
			b.ReportAllocs()
			for b.Loop() {
				allocs := make([]*structs.Allocation, 100)
				for i := range allocs {
					allocs[i] = &structs.Allocation{ID: fmt.Sprintf("a-%d-%d", index, i), Namespace: "default", EvalID: "e1",
						NodeID: "n1", JobID: "web", Job: stored, TaskGroup: "web", DesiredStatus: structs.AllocDesiredStatusRun,
						ClientStatus: structs.AllocClientStatusPending}
				}
				buf, err := structs.Encode(structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{AllocsUpdated: allocs, UpdatedAt: 1})
				if err != nil {
					b.Fatal(err)
				}
				if resp := f.Apply(&raft.Log{Index: index, Type: raft.LogCommand, Data: buf}); resp != nil {
					b.Fatal(resp)
				}
				index++
			}
		})
	}
}

type discardPublisher struct{}

func (discardPublisher) Publish(*structs.Events) {}

// A plan entry that finishes its eval (structs.Plan.FinalEval) shows the
// eval's final status as EvaluationUpdated, as the worker's own write
// did; the pending evals of preempted jobs stay plan results.
func TestFSM_PlanFinishingItsEvalPublishesEvalUpdated(t *testing.T) {
	f := newTestFSM(t)
	pub := &recordingPublisher{}
	f.SetEventPublisher(pub)
	final := mock.Eval("done", mock.Job("web"), structs.EvalTriggerJobRegister)
	final.Status = structs.EvalStatusComplete
	preemption := mock.Eval("victim", mock.Job("other"), structs.EvalTriggerPreemption)
	applyEntry(t, f, 30, structs.ApplyPlanResultsRequestType, &structs.ApplyPlanResultsRequest{
		FinalEval: final, PreemptionEvals: []*structs.Evaluation{preemption}, UpdatedAt: 1})

	b := pub.batches[len(pub.batches)-1]
	want := []string{"Evaluation/EvaluationUpdated/done", "Evaluation/PlanResult/victim"}
	if got := summary(b); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
}
