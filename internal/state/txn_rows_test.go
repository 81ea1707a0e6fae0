package state

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestTxnRows_MatchTransaction runs random writes of allocs, evals and jobs
// in batches of random length (a batch shares one memdb transaction and one
// txnRows between its writes; some batches are aborted) and checks after
// every write that each by-ID read of txnRows returns what a read through
// the transaction returns.
func TestTxnRows_MatchTransaction(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			s, nodes, job := randomWriteStore(t)
			var ids, evals []string
			jobs := []string{"web", "api", "batch"}
			index := uint64(100)
			for range 40 {
				b := s.BeginBatch()
				for range 1 + rng.IntN(8) {
					index++
					switch rng.IntN(4) {
					case 0: // an eval written, updated or collected
						id := fmt.Sprintf("e%02d", rng.IntN(12))
						if rng.IntN(4) == 0 {
							must(t, s.DeleteEvals(index, []string{id}, nil))
							break
						}
						e := mockEval(id, jobs[rng.IntN(len(jobs))])
						e.Status = []string{structs.EvalStatusPending, structs.EvalStatusComplete, structs.EvalStatusBlocked}[rng.IntN(3)]
						must(t, s.UpsertEvals(index, []*structs.Evaluation{e}))
						evals = append(evals, id)
					case 1: // a job registered or purged
						id := jobs[1+rng.IntN(len(jobs)-1)]
						if j, _ := b.View().JobByID(nil, "default", id); j != nil && rng.IntN(3) == 0 {
							must(t, s.DeleteJob(index, "default", id))
							break
						}
						must(t, s.UpsertJob(index, 0, mockJob(id)))
					default:
						randomAllocWrite(t, s, rng, &ids, nodes, job, index, false)
					}
					checkTxnRows(t, b, ids, evals, jobs, nodes)
				}
				if rng.IntN(5) == 0 {
					b.Abort()
					continue
				}
				b.Commit()
				checkNodeUsage(t, s.reader, "after commit")
				checkJobsRunning(t, s)
			}
		})
	}
}

func checkTxnRows(t *testing.T, b *Batch, allocs, evals, jobs, nodes []string) {
	t.Helper()
	tx := &writeTxn{Txn: b.tx, rows: b.rows}
	for _, id := range allocs {
		got, err := tx.allocByID(id)
		must(t, err)
		want, err := allocByID(b.tx, nil, id)
		must(t, err)
		if got != want {
			t.Fatalf("alloc %s: txnRows has %p, the transaction %p", id, got, want)
		}
	}
	for _, id := range evals {
		got, err := tx.evalByID(id)
		must(t, err)
		want, err := evalByID(b.tx, nil, id)
		must(t, err)
		if got != want {
			t.Fatalf("eval %s: txnRows has %p, the transaction %p", id, got, want)
		}
	}
	for _, id := range jobs {
		got, err := tx.jobByID("default", id)
		must(t, err)
		want, err := jobByID(b.tx, nil, "default", id)
		must(t, err)
		if got != want {
			t.Fatalf("job %s: txnRows has %p, the transaction %p", id, got, want)
		}
	}
	for _, id := range nodes {
		got, err := tx.storedNodeUsage(id)
		must(t, err)
		want, err := nodeUsage(b.tx, nil, id)
		must(t, err)
		if got != want {
			t.Fatalf("node usage %s: txnRows has %p, the transaction %p", id, got, want)
		}
	}
}

// checkJobsRunning recomputes every stored job's status from its allocs
// and evals: a job is running exactly when the recomputation says so
// (pending and dead also depend on evals collected in the past, which a
// recomputation cannot see).
func checkJobsRunning(t *testing.T, s *StateStore) {
	t.Helper()
	jobs, err := s.Jobs(nil, "*")
	must(t, err)
	txn := s.db.Txn(false)
	for _, j := range jobs {
		want, err := jobStatus(txn, j, false)
		must(t, err)
		if (want == structs.JobStatusRunning) != (j.Status == structs.JobStatusRunning) {
			t.Fatalf("job %s: stored status %s, recomputed %s", j.ID, j.Status, want)
		}
	}
}
