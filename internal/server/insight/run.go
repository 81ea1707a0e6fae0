package insight

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// Deps are what the answers take from the server: its clock. IDs of the
// hypothetical evals and allocs are drawn from a stream seeded by Seed, so
// the same state and question give the same answer.
type Deps struct {
	Now  func() time.Time
	Seed uint64
}

func (d Deps) now() time.Time {
	if d.Now == nil {
		return time.Unix(0, 0).UTC()
	}
	return d.Now()
}

// ids is a deterministic stream of UUID-shaped IDs.
type ids struct{ r *rand.Rand }

func newIDs(seed uint64, purpose string) *ids {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return &ids{r: rand.New(rand.NewPCG(seed, h.Sum64()))}
}

func (s *ids) next() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], s.r.Uint64())
	binary.BigEndian.PutUint64(b[8:], s.r.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// capture is the Planner of a hypothetical run: every plan commits in
// full, into the overlay when commit is set, and evals are recorded, not
// written.
type capture struct {
	ov      *overlay
	commit  bool
	plans   []*structs.Plan
	final   *structs.Evaluation
	created []*structs.Evaluation
}

func (c *capture) SubmitPlan(p *structs.Plan) (*structs.PlanResult, scheduler.State, error) {
	c.plans = append(c.plans, p)
	if c.commit {
		c.ov.apply(p)
	}
	return &structs.PlanResult{NodeUpdate: p.NodeUpdate, NodeAllocation: p.NodeAllocation,
		NodePreemptions: p.NodePreemptions, Deployment: p.Deployment, DeploymentUpdates: p.DeploymentUpdates,
		AllocIndex: c.ov.LatestIndex()}, nil, nil
}

func (c *capture) UpdateEval(e *structs.Evaluation) error { c.final = e; return nil }
func (c *capture) CreateEval(e *structs.Evaluation) error {
	c.created = append(c.created, e)
	return nil
}
func (c *capture) ReblockEval(e *structs.Evaluation) error { c.final = e; return nil }

// run processes one eval with the built-in scheduler of its type against
// the overlay; with commit its plans are written into the overlay.
func run(ov *overlay, d Deps, idSrc *ids, eval *structs.Evaluation, commit bool) (*capture, error) {
	factory, ok := scheduler.Builtins(scheduler.Deps{Now: d.now, NewID: idSrc.next,
		Stopwatch: func() func() time.Duration { return func() time.Duration { return 0 } }})[eval.Type]
	if !ok {
		return nil, fmt.Errorf("no scheduler for job type %q", eval.Type)
	}
	c := &capture{ov: ov, commit: commit}
	if err := factory(quiet, ov, c).Process(eval); err != nil {
		return nil, err
	}
	return c, nil
}

// jobEval is a pending eval of the job, as an endpoint would write it.
func jobEval(idSrc *ids, job *structs.Job, trigger string, now time.Time) *structs.Evaluation {
	t := now.UnixNano()
	return &structs.Evaluation{ID: idSrc.next(), Namespace: job.Namespace, Priority: job.Priority, Type: job.Type,
		TriggeredBy: trigger, JobID: job.ID, JobModifyIndex: job.JobModifyIndex, Status: structs.EvalStatusPending,
		CreateTime: t, ModifyTime: t}
}

// placed counts a capture's new placements of a group (not in-place
// updates of existing allocs, nor replacements of live ones), by node ID.
func placed(c *capture, ov *overlay, jobID, group string) map[string]int {
	out := map[string]int{}
	for _, p := range c.plans {
		for node, allocs := range p.NodeAllocation {
			for _, a := range allocs {
				if a.JobID != jobID || a.TaskGroup != group {
					continue
				}
				if stored, _ := ov.State.AllocByID(nil, a.ID); stored != nil {
					continue
				}
				// The replacement of a live alloc (a destructive update,
				// a lost or migrated alloc) takes its place, not more.
				if a.PreviousAllocation != "" {
					if prev, _ := ov.State.AllocByID(nil, a.PreviousAllocation); prev != nil && !prev.TerminalStatus() {
						continue
					}
				}
				out[node]++
			}
		}
	}
	return out
}
