package server

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// shutdownBound is how long Shutdown may take (issue 27: a SIGTERM'd
// leader must be gone within 10 s).
const shutdownBound = 10 * time.Second

// shutdownWithin runs Shutdown and fails the test when it has not returned
// within shutdownBound, naming the goroutines still running.
func shutdownWithin(t *testing.T, s *Server) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown() }()
	var err error
	testutil.WaitFor(t, shutdownBound, "Shutdown to return", func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	if err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// A leader under load (jobs registering, workers scheduling, plans in the
// applier) shuts down within the bound, and every write answered OK
// before it is there after a restart from the same data dir.
func TestShutdown_LeaderUnderLoad(t *testing.T) {
	dir := t.TempDir()
	s := testServer(t, dir)
	waitFor(t, s.LeaderActive)
	for i := range 20 {
		if _, err := s.RegisterNode(e2eNode(i, 4000, 8192)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("load-%d-%d", w, i)
				if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: e2eJob(id, 3, 100, 64)}); err != nil {
					return // the server is going away
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}()
	}
	testutil.WaitFor(t, 30*time.Second, "load: 60 jobs registered and allocs placed", func() (bool, string) {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		allocs, _ := s.State().Allocs(nil, "default")
		return n >= 60 && len(allocs) > 0, fmt.Sprintf("%d jobs", n)
	})
	shutdownWithin(t, s)
	close(stop)
	// Every write in flight is answered (an error for those raft had
	// not written yet), even for a caller whose context never ends.
	wrote := make(chan struct{})
	go func() { writers.Wait(); close(wrote) }()
	testutil.WaitFor(t, shutdownBound, "the writes in flight at shutdown to be answered", func() bool {
		select {
		case <-wrote:
			return true
		default:
			return false
		}
	})

	mu.Lock()
	want := append([]string(nil), acked...)
	mu.Unlock()
	s2 := testServer(t, dir)
	defer s2.Shutdown()
	waitFor(t, func() bool { return s2.State().LatestIndex() >= s2.startIndex })
	for _, id := range want {
		if job, _ := s2.State().JobByID(nil, "default", id); job == nil {
			t.Errorf("job %s was acknowledged but is lost after the restart", id)
		}
	}
}
