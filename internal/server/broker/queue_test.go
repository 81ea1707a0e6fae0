package broker

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestBroker_ReadyOrder(t *testing.T) {
	cases := []struct {
		name   string
		evals  []*structs.Evaluation
		scheds []string
		want   []string
	}{
		{
			name: "priority desc then create index asc",
			evals: []*structs.Evaluation{
				mkEval("a", "service", "j1", 50, 10),
				mkEval("b", "service", "j2", 70, 12),
				mkEval("c", "service", "j3", 50, 5),
				mkEval("d", "service", "j4", 70, 11),
			},
			scheds: []string{"service"},
			want:   []string{"d", "b", "c", "a"},
		},
		{
			name: "ID breaks full ties",
			evals: []*structs.Evaluation{
				mkEval("z", "batch", "j1", 50, 7),
				mkEval("y", "batch", "j2", 50, 7),
			},
			scheds: []string{"batch"},
			want:   []string{"y", "z"},
		},
		{
			name: "across types: best head wins, order of schedulers irrelevant",
			evals: []*structs.Evaluation{
				mkEval("s1", "service", "j1", 50, 1),
				mkEval("b1", "batch", "j2", 80, 2),
				mkEval("s2", "service", "j3", 50, 3),
				mkEval("b2", "batch", "j4", 50, 2),
			},
			scheds: []string{"service", "batch"},
			want:   []string{"b1", "s1", "b2", "s2"},
		},
		{
			name: "only the asked types",
			evals: []*structs.Evaluation{
				mkEval("s1", "service", "j1", 50, 1),
				mkEval("b1", "batch", "j2", 80, 2),
				mkEval("y1", "system", "j3", 90, 3),
			},
			scheds: []string{"service", "system"},
			want:   []string{"y1", "s1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newTestBroker(t)
			for _, e := range tc.evals {
				b.Enqueue(e)
			}
			if got := dequeueIDs(t, b, tc.scheds...); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("order %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBroker_PerTypeQueues(t *testing.T) {
	b, _ := newTestBroker(t)
	b.Enqueue(mkEval("s", "service", "j1", 50, 1))
	b.Enqueue(mkEval("b", "batch", "j2", 50, 2))
	mustNotDequeue(t, b, "system")
	if e, _ := mustDequeue(t, b, "batch"); e.ID != "b" {
		t.Fatalf("batch dequeue got %s", e.ID)
	}
	mustNotDequeue(t, b, "batch")
	s := b.Stats()
	if s.ByScheduler["service"].Ready != 1 || s.ByScheduler["batch"].Unacked != 1 {
		t.Fatalf("by scheduler: service %+v batch %+v", s.ByScheduler["service"], s.ByScheduler["batch"])
	}
}

func TestBroker_EnqueueIsIdempotentAndSkipsTerminal(t *testing.T) {
	b, _ := newTestBroker(t)
	e := mkEval("a", "service", "j1", 50, 1)
	b.Enqueue(e)
	b.Enqueue(e)
	b.EnqueueAll(map[*structs.Evaluation]string{e.Copy(): ""})
	done := mkEval("done", "service", "j2", 50, 2)
	done.Status = structs.EvalStatusComplete
	b.Enqueue(done)
	blocked := mkEval("unblocked", "service", "j3", 50, 3)
	blocked.Status = structs.EvalStatusBlocked // unblocked evals are still stored as blocked
	b.Enqueue(blocked)
	wantStats(t, b, 2, 0, 0, 0, 0)

	// Still tracked while outstanding: a repeated notification is ignored.
	got, _ := mustDequeue(t, b, "service")
	b.Enqueue(got)
	wantStats(t, b, 1, 1, 0, 0, 0)
}

func TestBroker_OneEvalPerJob(t *testing.T) {
	b, _ := newTestBroker(t)
	b.Enqueue(mkEval("j1-a", "service", "j1", 50, 1))
	b.Enqueue(mkEval("j1-b", "service", "j1", 90, 2))
	b.Enqueue(mkEval("j2-a", "service", "j2", 50, 3))
	// Same job ID in another namespace is another job.
	other := mkEval("ns2-j1", "service", "j1", 50, 4)
	other.Namespace = "other"
	b.Enqueue(other)
	wantStats(t, b, 3, 0, 0, 1, 0)

	if got := dequeueIDs(t, b, "service"); !reflect.DeepEqual(got, []string{"j1-a", "j2-a", "ns2-j1"}) {
		t.Fatalf("dequeued %v; j1-b must wait behind j1-a", got)
	}
	if s := b.Stats(); s.ByScheduler["service"].Pending != 1 {
		t.Fatalf("pending by scheduler = %+v", s.ByScheduler["service"])
	}
}

func TestBroker_AckPromotesNewestAndCancelsOlder(t *testing.T) {
	b, _ := newTestBroker(t)
	b.Enqueue(mkEval("e1", "service", "j1", 50, 1))
	e1, tok := mustDequeue(t, b, "service")
	// Enqueued out of index order; the newest is e4 whatever the priority.
	b.Enqueue(mkEval("e3", "service", "j1", 50, 3))
	b.Enqueue(mkEval("e4", "service", "j1", 40, 4))
	b.Enqueue(mkEval("e2", "service", "j1", 90, 2))
	wantStats(t, b, 0, 1, 0, 3, 0)

	if err := b.Ack(e1.ID, tok); err != nil {
		t.Fatal(err)
	}
	wantStats(t, b, 1, 0, 0, 0, 2)
	if e, _ := mustDequeue(t, b, "service"); e.ID != "e4" {
		t.Fatalf("promoted %s, want the newest e4", e.ID)
	}

	first := b.Cancelable(1)
	rest := b.Cancelable(0)
	if len(first) != 1 || first[0].ID != "e3" || len(rest) != 1 || rest[0].ID != "e2" {
		t.Fatalf("cancelable batches %v %v", ids(first), ids(rest))
	}
	wantStats(t, b, 0, 1, 0, 0, 0)
	if b.Cancelable(10) != nil {
		t.Fatal("cancelable not drained")
	}
	// Popped evals are no longer tracked: a restore may enqueue them again.
	b.Enqueue(mkEval("e2", "service", "j1", 90, 2))
	wantStats(t, b, 0, 1, 0, 1, 0)
}

func ids(evals []*structs.Evaluation) []string {
	out := make([]string, len(evals))
	for i, e := range evals {
		out[i] = e.ID
	}
	return out
}

// "Newest" is the latest modification, not the latest creation: an eval
// created first but modified last (a blocked eval unblocked and
// re-enqueued) is the one promoted, and the later-created one is canceled.
func TestBroker_AckPromotesLatestModifiedOverLatestCreated(t *testing.T) {
	b, _ := newTestBroker(t)
	b.Enqueue(mkEval("running", "service", "j1", 50, 1))
	running, tok := mustDequeue(t, b, "service")
	reenqueued := mkEval("reenqueued", "service", "j1", 50, 2)
	reenqueued.ModifyIndex = 9
	b.Enqueue(reenqueued)
	b.Enqueue(mkEval("created-later", "service", "j1", 50, 5))

	if err := b.Ack(running.ID, tok); err != nil {
		t.Fatal(err)
	}
	if e, _ := mustDequeue(t, b, "service"); e.ID != "reenqueued" {
		t.Fatalf("promoted %s, want reenqueued (modify index 9)", e.ID)
	}
	if c := b.Cancelable(0); len(c) != 1 || c[0].ID != "created-later" {
		t.Fatalf("cancelable %v, want [created-later]", ids(c))
	}
}
