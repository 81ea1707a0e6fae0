package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// testServer starts a server; with dataDir set it is a non-dev,
// single-voter server keeping raft on disk.
func testServer(t *testing.T, dataDir string) *Server {
	t.Helper()
	cfg := &Config{
		NodeName: "test", DevMode: dataDir == "", DataDir: dataDir, BootstrapExpect: 1,
		RaftAddr: "127.0.0.1:4647", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		RaftTimings: &RaftTimings{Heartbeat: 50 * time.Millisecond, Election: 50 * time.Millisecond,
			LeaderLease: 50 * time.Millisecond, Commit: 5 * time.Millisecond},
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	if err := s.WaitForLeader(10 * time.Second); err != nil {
		t.Fatalf("leader: %v", err)
	}
	return s
}

// testJob is mock.JobSpec (not yet canonicalized, so callers may change
// its type) with group "g" of count 2 whose task "t" runs /bin/true and
// asks the default resources.
func testJob(id string) *structs.Job {
	j := mock.JobSpec(id)
	tg := j.TaskGroups[0]
	tg.Name, tg.Count = "g", 2
	task := tg.Tasks[0]
	task.Name, task.Config, task.Resources = "t", map[string]any{"command": "/bin/true"}, nil
	return j
}

// A restarted non-dev server replays its on-disk raft log and keeps every
// acknowledged job and eval.
func TestServerRestart_KeepsJobsAndEvals(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	var evalIDs []string
	for _, id := range []string{"a", "b", "c"} {
		reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob(id)})
		if err != nil {
			t.Fatalf("register %s: %v", id, err)
		}
		evalIDs = append(evalIDs, reply.EvalID)
	}
	stop, err := JobDeregister.Call(context.Background(), s, &structs.JobDeregisterArgs{JobID: "c"})
	if err != nil {
		t.Fatalf("deregister: %v", err)
	}
	evalIDs = append(evalIDs, stop.EvalID)
	wantIndex := s.State().LatestIndex()
	if err := s.Shutdown(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	s2 := testServer(t, dir)
	defer s2.Shutdown()
	waitFor(t, func() bool { return s2.State().LatestIndex() >= wantIndex })
	for _, id := range []string{"a", "b", "c"} {
		job, err := s2.State().JobByID(nil, "default", id)
		if err != nil || job == nil {
			t.Fatalf("job %s lost across restart: %v", id, err)
		}
		if job.Stop != (id == "c") {
			t.Errorf("job %s Stop = %v after restart", id, job.Stop)
		}
	}
	for _, id := range evalIDs {
		if e, err := s2.State().EvalByID(nil, id); err != nil || e == nil {
			t.Errorf("eval %s lost across restart: %v", id, err)
		}
	}
}

func TestServerRestart_FromRaftSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("snap")}); err != nil {
		t.Fatalf("register: %v", err)
	}
	if err := s.raft.Snapshot().Error(); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("after")}); err != nil {
		t.Fatalf("register after snapshot: %v", err)
	}
	want := s.State().LatestIndex()
	s.Shutdown()

	s2 := testServer(t, dir)
	defer s2.Shutdown()
	waitFor(t, func() bool { return s2.State().LatestIndex() >= want })
	for _, id := range []string{"snap", "after"} {
		if job, _ := s2.State().JobByID(nil, "default", id); job == nil {
			t.Errorf("job %s lost across snapshot + restart", id)
		}
	}
}

func TestJobRegister_JobAndEvalInOneEntry(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	reply, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("one")})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	job, _ := s.State().JobByID(nil, "default", "one")
	eval, _ := s.State().EvalByID(nil, reply.EvalID)
	if job == nil || eval == nil {
		t.Fatalf("job %v eval %v", job, eval)
	}
	if job.ModifyIndex != eval.CreateIndex || eval.CreateIndex != reply.Index {
		t.Errorf("job index %d, eval index %d, reply index %d: not one raft entry", job.ModifyIndex, eval.CreateIndex, reply.Index)
	}
	if eval.TriggeredBy != structs.EvalTriggerJobRegister || eval.Status != structs.EvalStatusPending || eval.JobModifyIndex != job.JobModifyIndex {
		t.Errorf("eval = %+v", eval)
	}
}

func TestJobRegister_EnforceIndex(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("x"), EnforceIndex: true, JobModifyIndex: 0}); err != nil {
		t.Fatalf("create with index 0: %v", err)
	}
	_, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("x"), EnforceIndex: true, JobModifyIndex: 0})
	if ErrorCode(err) != 400 {
		t.Fatalf("stale enforce index: got %v", err)
	}
}

// waitFor is testutil.WaitFor with this package's usual deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "the condition", cond)
}

// blockingSink holds the FSM inside Apply while it is closed: an entry
// it sees is committed but not applied until release.
type blockingSink struct{ entered, release chan struct{} }

func (b blockingSink) EvalsWritten([]*structs.Evaluation, string) {
	b.entered <- struct{}{}
	<-b.release
}
func (b blockingSink) CapacityChanged(*structs.Node, uint64) {}

// A write whose caller goes away stops waiting for its commit and says
// the write may still apply; the entry then applies all the same. Before
// raftApply took a context it waited out raftApplyTimeout (30 s) for a
// caller nobody was listening to, and held shutdown as long.
func TestRaftApply_StopsWaitingWhenTheCallerGoesAway(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	sink := blockingSink{entered: make(chan struct{}), release: make(chan struct{})}
	s.fsm.SetEvalSink(sink)
	ctx, cancel := context.WithCancel(context.Background())
	eval := &structs.Evaluation{ID: NewUUID(), Namespace: "default", JobID: "j", Type: "service", Status: structs.EvalStatusComplete, Priority: 50}
	errc := make(chan error, 1)
	go func() {
		_, err := s.raftApply(ctx, structs.EvalUpdateRequestType, &structs.EvalUpdateRequest{Evals: []*structs.Evaluation{eval}})
		errc <- err
	}()
	<-sink.entered // the FSM is applying the entry and cannot finish
	cancel()
	err := <-errc
	if ErrorCode(err) != http.StatusServiceUnavailable || !strings.Contains(err.Error(), "may or may not apply") {
		t.Fatalf("raftApply after its caller went away: %v, want 503 saying the write may still apply", err)
	}
	close(sink.release)
	testutil.WaitFor(t, 10*time.Second, "the entry to apply", func() bool {
		got, err := s.State().EvalByID(nil, eval.ID)
		return err == nil && got != nil
	})
}
