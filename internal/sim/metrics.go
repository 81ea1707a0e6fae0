package sim

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// Mark is a point to measure from.
type Mark struct {
	index uint64
	runs  int64
	at    time.Time
}

// Mark records the current raft index, scheduler runs and real time.
func (s *Sim) Mark() Mark {
	return Mark{index: s.srv.State().LatestIndex(), runs: s.runs.Load(), at: time.Now()}
}

// Metrics is what the cluster did since a mark.
type Metrics struct {
	EvalsWritten   int            // evals created since the mark
	EvalsProcessed int64          // scheduler runs (an eval unblocked twice counts twice)
	EvalsCanceled  int            // of those written, canceled without a run
	ByTrigger      map[string]int // written, by trigger
	RaftEntries    uint64         // raft index delta
	Elapsed        time.Duration  // real time since the mark
}

// MetricsSince measures the cluster's work since m.
func (s *Sim) MetricsSince(m Mark) (Metrics, error) {
	out := Metrics{
		EvalsProcessed: s.runs.Load() - m.runs, ByTrigger: map[string]int{},
		RaftEntries: s.srv.State().LatestIndex() - m.index, Elapsed: time.Since(m.at),
	}
	evals, err := s.srv.State().Evals(nil, "*")
	if err != nil {
		return out, err
	}
	for _, e := range evals {
		if e.CreateIndex <= m.index {
			continue
		}
		out.EvalsWritten++
		out.ByTrigger[e.TriggeredBy]++
		if e.Status == structs.EvalStatusCanceled {
			out.EvalsCanceled++
		}
	}
	return out, nil
}

// Write prints the metrics as a small table.
func (m Metrics) Write(w io.Writer) {
	fmt.Fprintf(w, "evals written     %d (%s)\n", m.EvalsWritten, countList(m.ByTrigger))
	fmt.Fprintf(w, "evals processed   %d\n", m.EvalsProcessed)
	fmt.Fprintf(w, "evals canceled    %d\n", m.EvalsCanceled)
	fmt.Fprintf(w, "raft entries      %d\n", m.RaftEntries)
	fmt.Fprintf(w, "time to quiet     %v\n", m.Elapsed.Round(time.Millisecond))
}

// Flap marks each node down and at once ready again, in turn, without
// waiting for the cluster in between (as the heartbeat timer and the
// node's next heartbeat would): the flapping-cluster load of docs/design.md.
func (s *Sim) Flap(names []string) error {
	for _, name := range names {
		n, err := s.node(name)
		if err != nil {
			return err
		}
		if _, err := server.NodeUpdateStatus.Call(context.Background(), s.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID, Status: structs.NodeStatusDown}); err != nil {
			return fmt.Errorf("sim: flap %s down: %w", name, err)
		}
		if err := n.heartbeat(); err != nil {
			return err
		}
	}
	return nil
}
