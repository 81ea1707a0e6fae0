package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A restarted server answers reads only from a state that has replayed
// the raft log it had at start: right after New, before any election, a
// read gets every job or waits (never a partial list), and a stale read
// gets every job or a 503.
func TestRestart_NoPartialReadsWhileReplaying(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	const jobs = 40
	for i := 0; i < jobs; i++ {
		if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob(fmt.Sprintf("j%02d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Shutdown(); err != nil {
		t.Fatal(err)
	}

	// Default (non-dev) raft timings: the election takes a second or so,
	// and the log after the last snapshot is applied only once committed.
	s2, err := New(&Config{NodeName: "test", DataDir: dir, BootstrapExpect: 1, RaftAddr: "127.0.0.1:4647",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Shutdown()
	if s2.startIndex == 0 {
		t.Fatal("the restarted server should remember the log's last index")
	}
	stale, err := JobList.Call(context.Background(), s2, &structs.JobListRequest{QueryOptions: structs.QueryOptions{Namespace: "default", AllowStale: true}})
	switch {
	case err != nil && ErrorCode(err) != 503:
		t.Fatalf("stale read while replaying: %v (want every job or 503)", err)
	case err == nil && len(stale.Jobs) != jobs:
		t.Fatalf("stale read while replaying answered %d of %d jobs", len(stale.Jobs), jobs)
	}
	fresh, err := JobList.Call(context.Background(), s2, &structs.JobListRequest{QueryOptions: structs.QueryOptions{Namespace: "default"}})
	if err != nil {
		t.Fatalf("read after restart: %v", err)
	}
	if len(fresh.Jobs) != jobs || !fresh.KnownLeader {
		t.Fatalf("read after restart: %d of %d jobs, known leader %v", len(fresh.Jobs), jobs, fresh.KnownLeader)
	}
}
