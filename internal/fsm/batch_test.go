package fsm

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// genLog returns a raft log of n entries drawn by r from a small world
// (three jobs, four nodes, a dozen allocs and evals) so that entries meet
// each other's writes: registers, deregisters and purges, plan results
// placing and stopping allocs and finishing evals, client updates, node
// status and eligibility changes, eval updates and deletes, scheduler
// configuration check-and-sets (some conflicting), entries that fail
// (a status update of an unknown node) and non-command entries.
func genLog(t testing.TB, r *rand.Rand, n int) []*raft.Log {
	jobs := []string{"web", "api", "batch"}
	nodes := []string{"n1", "n2", "n3", "n4"}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	allocID := func() string { return fmt.Sprintf("a%d", r.IntN(12)) }
	evalID := func() string { return fmt.Sprintf("e%d", r.IntN(12)) }
	eval := func(index uint64, job, trigger string) *structs.Evaluation {
		e := mock.Eval(evalID(), mock.Job(job), trigger)
		e.CreateTime, e.ModifyTime = int64(index), int64(index)
		switch r.IntN(4) {
		case 0:
			e.Status = structs.EvalStatusComplete
		case 1:
			e.Status = structs.EvalStatusBlocked
		}
		return e
	}
	var logs []*raft.Log
	for i := 0; i < n; i++ {
		index := uint64(100 + i)
		var mt structs.MessageType
		var msg any
		switch r.IntN(13) {
		case 0:
			logs = append(logs, &raft.Log{Index: index, Type: raft.LogNoop})
			continue
		case 1, 2:
			job := pick(jobs)
			mt, msg = structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: mock.Job(job),
				Eval: eval(index, job, structs.EvalTriggerJobRegister), SubmitTime: int64(index)}
		case 3:
			job := pick(jobs)
			mt, msg = structs.JobDeregisterRequestType, &structs.JobDeregisterRequest{Namespace: "default", JobID: job,
				Purge: r.IntN(3) == 0, Eval: eval(index, job, structs.EvalTriggerJobDeregister), SubmitTime: int64(index)}
		case 4:
			mt, msg = structs.NodeRegisterRequestType, &structs.NodeRegisterRequest{Node: mock.Node(pick(nodes))}
		case 5:
			status := structs.NodeStatusReady
			if r.IntN(2) == 0 {
				status = structs.NodeStatusDown
			}
			// An unknown node fails the entry: a batch holding it is
			// applied again one by one.
			node := pick(append(nodes, "missing"))
			mt, msg = structs.NodeUpdateStatusRequestType, &structs.NodeUpdateStatusRequest{NodeID: node, Status: status,
				UpdatedAt: int64(index), Evals: []*structs.Evaluation{eval(index, pick(jobs), structs.EvalTriggerNodeUpdate)}}
		case 6, 7, 8:
			job := mock.Job(pick(jobs))
			req := &structs.ApplyPlanResultsRequest{Job: job, EvalID: evalID(), UpdatedAt: int64(index)}
			for k := r.IntN(4); k > 0; k-- {
				a := mock.Alloc(allocID(), job, pick(nodes))
				req.AllocsUpdated = append(req.AllocsUpdated, a)
			}
			for k := r.IntN(2); k > 0; k-- {
				req.AllocsStopped = append(req.AllocsStopped, &structs.Allocation{ID: allocID(),
					DesiredStatus: structs.AllocDesiredStatusStop, ClientStatus: structs.AllocClientStatusComplete})
			}
			if r.IntN(2) == 0 {
				final := eval(index, job.ID, structs.EvalTriggerJobRegister)
				final.Status = structs.EvalStatusComplete
				req.FinalEval = final
			}
			if r.IntN(4) == 0 {
				req.PreemptionEvals = []*structs.Evaluation{eval(index, pick(jobs), structs.EvalTriggerPreemption)}
			}
			mt, msg = structs.ApplyPlanResultsRequestType, req
		case 9:
			status := structs.AllocClientStatusRunning
			if r.IntN(2) == 0 {
				status = structs.AllocClientStatusComplete
			}
			mt, msg = structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{
				{ID: allocID(), ClientStatus: status, TaskStates: map[string]*structs.TaskState{"t": {State: structs.TaskStateRunning}}}},
				Evals: []*structs.Evaluation{eval(index, pick(jobs), structs.EvalTriggerRetryFailedAlloc)}}
		case 10:
			mt, msg = structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{
				eval(index, pick(jobs), structs.EvalTriggerJobRegister), eval(index, pick(jobs), structs.EvalTriggerNodeUpdate)},
				EvalToken: fmt.Sprint("token", r.IntN(2))}
		case 11:
			mt, msg = structs.EvalDeleteRequestType, &structs.EvalDeleteRequest{Evals: []string{evalID()}}
		case 12:
			mt, msg = structs.SchedulerConfigRequestType, &structs.SchedulerSetConfigRequest{CAS: r.IntN(2) == 0,
				Config: structs.SchedulerConfiguration{SchedulerAlgorithm: pick([]string{"binpack", "spread"}),
					ModifyIndex: uint64(100 + r.IntN(i+1))}}
		}
		buf, err := structs.Encode(mt, msg)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: index, Type: raft.LogCommand, Data: buf})
	}
	return logs
}

// observed is everything applying a log showed the outside world.
type observed struct {
	responses []string
	sink      []string
	events    []string
	snapshot  []byte
	applied   uint64
}

// observingSink records the sink calls with what they carried.
type observingSink struct{ got *[]string }

func (s observingSink) EvalsWritten(evals []*structs.Evaluation, token string) {
	for _, e := range evals {
		*s.got = append(*s.got, fmt.Sprintf("eval %s %s create=%d modify=%d jmi=%d token=%s", e.ID, e.Status, e.CreateIndex, e.ModifyIndex, e.JobModifyIndex, token))
	}
}

func (s observingSink) CapacityChanged(node *structs.Node, index uint64) {
	*s.got = append(*s.got, fmt.Sprintf("capacity %s %s modify=%d at %d", node.ID, node.Status, node.ModifyIndex, index))
}

type observingPublisher struct{ got *[]string }

func (p observingPublisher) Publish(b *structs.Events) {
	for _, e := range b.Events {
		idx := uint64(0)
		switch v := e.Payload.(type) {
		case *structs.AllocationEvent:
			idx = v.Allocation.ModifyIndex
		case *structs.EvaluationEvent:
			idx = v.Evaluation.ModifyIndex
		case *structs.JobEvent:
			idx = v.Job.ModifyIndex
		case *structs.NodeStreamEvent:
			idx = v.Node.ModifyIndex
		}
		*p.got = append(*p.got, fmt.Sprintf("%d/%d %s/%s/%s %v modify=%d", b.Index, e.Index, e.Topic, e.Type, e.Key, e.FilterKeys, idx))
	}
}

// canonicalSnapshot re-encodes a snapshot stream with map keys sorted:
// Persist writes maps (node attributes, task states) in Go's random map
// order, so two encodings of one state differ byte-wise without this.
func canonicalSnapshot(t testing.TB, b []byte) []byte {
	h := &codec.MsgpackHandle{}
	h.Canonical = true
	h.RawToString = true
	dec := codec.NewDecoderBytes(b, structs.MsgpackHandle)
	var out []byte
	enc := codec.NewEncoderBytes(&out, h)
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
}

// applyLog applies logs in batches: cuts[i] ends a batch after entry i
// (nil applies every entry with Apply).
func applyLog(t testing.TB, logs []*raft.Log, cut func(i int) bool) observed {
	f, err := New(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var o observed
	f.SetEvalSink(observingSink{&o.sink})
	f.SetEventPublisher(observingPublisher{&o.events})
	record := func(resp any) {
		o.responses = append(o.responses, fmt.Sprint(resp))
	}
	if cut == nil {
		for _, l := range logs {
			record(f.Apply(l))
		}
	} else {
		start := 0
		for i := range logs {
			if i == len(logs)-1 || cut(i) {
				resps := f.ApplyBatch(logs[start : i+1])
				if len(resps) != i+1-start {
					t.Fatalf("ApplyBatch of %d entries returned %d responses", i+1-start, len(resps))
				}
				for _, r := range resps {
					record(r)
				}
				start = i + 1
			}
		}
	}
	var buf bytes.Buffer
	if err := f.State().Snapshot().Persist(&buf); err != nil {
		t.Fatal(err)
	}
	o.snapshot = canonicalSnapshot(t, buf.Bytes())
	o.applied, _ = f.applied.current()
	return o
}

func compareObserved(t testing.TB, what string, want, got observed) {
	t.Helper()
	eq := func(name string, a, b []string) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			for i := 0; i < max(len(a), len(b)); i++ {
				var x, y string
				if i < len(a) {
					x = a[i]
				}
				if i < len(b) {
					y = b[i]
				}
				if x != y {
					t.Fatalf("%s: %s differ first at %d:\n one by one %q\n batched    %q", what, name, i, x, y)
				}
			}
		}
	}
	eq("responses", want.responses, got.responses)
	eq("sink calls", want.sink, got.sink)
	eq("events", want.events, got.events)
	if !bytes.Equal(want.snapshot, got.snapshot) {
		t.Fatalf("%s: snapshots differ (%d vs %d bytes)", what, len(want.snapshot), len(got.snapshot))
	}
	if want.applied != got.applied {
		t.Fatalf("%s: applied index %d, want %d", what, got.applied, want.applied)
	}
}

// A log applied in batches of every size leaves byte for byte the
// snapshot, responses, sink calls and events that applying it entry by
// entry does.
func TestFSM_ApplyBatchEqualsApplyOneByOne(t *testing.T) {
	logs := genLog(t, rand.New(rand.NewPCG(34, 1)), 400)
	want := applyLog(t, logs, nil)
	// The log must exercise what batching has to get right.
	errs, evals, events := 0, 0, 0
	for _, r := range want.responses {
		if r != "<nil>" {
			errs++
		}
	}
	for _, s := range want.sink {
		if len(s) > 4 && s[:4] == "eval" {
			evals++
		}
	}
	events = len(want.events)
	if errs == 0 || evals == 0 || events == 0 || len(want.sink) == evals {
		t.Fatalf("log too tame: %d failed entries, %d sink evals, %d sink calls, %d events", errs, evals, len(want.sink), events)
	}
	for _, size := range []int{2, 3, 7, 16, 64, 400} {
		got := applyLog(t, logs, func(i int) bool { return (i+1)%size == 0 })
		compareObserved(t, fmt.Sprintf("batches of %d", size), want, got)
	}
}

// A batch whose entries all succeed commits as one transaction, not
// through the one-by-one retry (so the equivalence above covers the
// batched path): when the sink hears of the first entry's eval, the store
// already holds the last entry's job, and the sink still gets each eval
// as its own entry stored it.
func TestFSM_ApplyBatchCommitsOnceBeforeTheSinkHears(t *testing.T) {
	f := newTestFSM(t)
	var logs []*raft.Log
	for i, job := range []string{"web", "api", "batch"} {
		buf, err := structs.Encode(structs.JobRegisterRequestType, &structs.JobRegisterRequest{Job: mock.Job(job),
			Eval: testEval("e-"+job, job, structs.EvalTriggerJobRegister)})
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, &raft.Log{Index: uint64(10 + i), Type: raft.LogCommand, Data: buf})
	}
	sink := &committedSink{f: f}
	f.SetEvalSink(sink)
	for _, r := range f.ApplyBatch(logs) {
		if r != nil {
			t.Fatal(r)
		}
	}
	want := "e-web@10 sees batch=true; e-api@11 sees batch=true; e-batch@12 sees batch=true; "
	if sink.got != want {
		t.Fatalf("sink saw %q, want %q", sink.got, want)
	}
}

type committedSink struct {
	f   *FSM
	got string
}

func (s *committedSink) EvalsWritten(evals []*structs.Evaluation, _ string) {
	last, _ := s.f.State().JobByID(nil, "default", "batch")
	for _, e := range evals {
		s.got += fmt.Sprintf("%s@%d sees batch=%v; ", e.ID, e.ModifyIndex, last != nil)
	}
}

func (s *committedSink) CapacityChanged(*structs.Node, uint64) {}

// FuzzApplyBatch applies random logs in random batches and holds them to
// the one-by-one result.
func FuzzApplyBatch(f *testing.F) {
	f.Add(uint64(1), uint8(60), []byte{3, 1, 9})
	f.Add(uint64(7), uint8(200), []byte{64})
	f.Add(uint64(34), uint8(20), []byte{1, 1, 2})
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, cuts []byte) {
		logs := genLog(t, rand.New(rand.NewPCG(seed, 2)), int(n))
		if len(cuts) == 0 {
			cuts = []byte{1}
		}
		want := applyLog(t, logs, nil)
		next, k := int(cuts[0]), 0
		got := applyLog(t, logs, func(i int) bool {
			if i+1 < next {
				return false
			}
			k++
			next = i + 1 + int(cuts[k%len(cuts)])
			return true
		})
		compareObserved(t, "fuzzed batches", want, got)
	})
}

// BenchmarkFSMApplyPlanResults applies plan result entries (10 placements
// without their job, as planapply sends them, and the plan's finished eval
// each; events on as on a server), 64 per op, one by one and in batches as
// raft hands them over; ns/entry is per entry.
func BenchmarkFSMApplyPlanResults(b *testing.B) {
	const perOp = 64
	for _, batch := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("batch=%d", batch), func(b *testing.B) {
			f, err := New(nil)
			if err != nil {
				b.Fatal(err)
			}
			f.SetEventPublisher(discardPublisher{})
			job := mock.Job("web")
			if err := f.State().UpsertJob(1, 1, job); err != nil {
				b.Fatal(err)
			}
			for i := range 100 {
				if err := f.State().UpsertNode(uint64(2+i), mock.Node(fmt.Sprintf("node-%03d", i))); err != nil {
					b.Fatal(err)
				}
			}
			stored, _ := f.State().JobByID(nil, "default", "web")
			index := uint64(1000)
			entry := func() *raft.Log {
				req := &structs.ApplyPlanResultsRequest{Job: stored, EvalID: fmt.Sprint("eval-", index), UpdatedAt: int64(index)}
				for i := range 10 {
					a := mock.Alloc(fmt.Sprintf("alloc-%d-%d", index, i), stored, fmt.Sprintf("node-%03d", (int(index)+i)%100)).WithoutJob(stored)
					req.AllocsUpdated = append(req.AllocsUpdated, a)
				}
				final := mock.Eval(req.EvalID, stored, structs.EvalTriggerJobRegister)
				final.Status = structs.EvalStatusComplete
				req.FinalEval = final
				buf, err := structs.Encode(structs.ApplyPlanResultsRequestType, req)
				if err != nil {
					b.Fatal(err)
				}
				index++
				return &raft.Log{Index: index, Type: raft.LogCommand, Data: buf}
			}
			b.ReportAllocs()
			logs := make([]*raft.Log, perOp)
			for b.Loop() {
				b.StopTimer()
				for i := range logs {
					logs[i] = entry()
				}
				b.StartTimer()
				for start := 0; start < perOp; start += batch {
					for _, r := range f.ApplyBatch(logs[start : start+batch]) {
						if r != nil {
							b.Fatal(r)
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*perOp), "ns/entry")
		})
	}
}
