package state

import (
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestUpsertEvals_InsertAndUpdate(t *testing.T) {
	s := newStore(t)
	e := mockEval("e1", "web")
	e.RelatedEvals = []*structs.EvaluationStub{{ID: "x"}}
	ws := memdb.NewWatchSet()
	s.EvalByID(ws, "e1")
	must(t, s.UpsertEvals(10, []*structs.Evaluation{e}))
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}
	got, _ := s.EvalByID(nil, "e1")
	if got.CreateIndex != 10 || got.ModifyIndex != 10 || got.RelatedEvals != nil {
		t.Fatalf("stored %+v", got)
	}
	if got == e {
		t.Fatal("eval not copied")
	}

	u := mockEval("e1", "web")
	u.Status = structs.EvalStatusComplete
	u.CreateIndex, u.CreateTime = 99, 42 // ignored: creation stamps are kept
	must(t, s.UpsertEvals(11, []*structs.Evaluation{u}))
	got, _ = s.EvalByID(nil, "e1")
	if got.CreateIndex != 10 || got.CreateTime != e.CreateTime || got.ModifyIndex != 11 || got.Status != structs.EvalStatusComplete {
		t.Fatalf("updated %+v", got)
	}
	wantIndex(t, s, TableEvals, 11)
	if s.Index(TableJobs) != 0 {
		t.Fatal("jobs index moved without a job")
	}
}

func TestDeleteEvals(t *testing.T) {
	s := newStore(t)
	job := mockJob("web")
	must(t, s.UpsertJob(9, 0, job))
	must(t, s.UpsertEvals(10, []*structs.Evaluation{mockEval("e1", "web"), mockEval("e2", "web")}))
	must(t, s.UpsertAllocs(11, []*structs.Allocation{mockAlloc("a1", job, "n1")}))
	ws := memdb.NewWatchSet()
	s.AllocByID(ws, "a1")
	must(t, s.DeleteEvals(12, []string{"e1", "missing"}, []string{"a1"}))
	if !watchFired(ws) {
		t.Fatal("alloc watch did not fire")
	}
	if e, _ := s.EvalByID(nil, "e1"); e != nil {
		t.Fatal("e1 not deleted")
	}
	if e, _ := s.EvalByID(nil, "e2"); e == nil {
		t.Fatal("e2 deleted")
	}
	if a, _ := s.AllocByID(nil, "a1"); a != nil {
		t.Fatal("a1 not deleted")
	}
	wantIndex(t, s, TableEvals, 12)
	wantIndex(t, s, TableAllocs, 12)
}

func TestEvalReads(t *testing.T) {
	s := newStore(t)
	evals := []*structs.Evaluation{mockEval("aa1", "web"), mockEval("aa2", "db"), mockEval("ab1", "web"), mockEval("b1", "web")}
	evals[1].Status = structs.EvalStatusBlocked
	evals[3].Namespace = "prod"
	must(t, s.UpsertEvals(10, evals))
	ids := func(es []*structs.Evaluation, err error) []string {
		must(t, err)
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"prefix", ids(s.EvalsByIDPrefix(nil, "default", "aa")), []string{"aa1", "aa2"}},
		{"prefix other namespace", ids(s.EvalsByIDPrefix(nil, "prod", "")), []string{"b1"}},
		{"prefix all namespaces", ids(s.EvalsByIDPrefix(nil, "*", "")), []string{"aa1", "aa2", "ab1", "b1"}},
		{"namespace", ids(s.Evals(nil, "default")), []string{"aa1", "aa2", "ab1"}},
		{"all", ids(s.Evals(nil, "*")), []string{"aa1", "aa2", "ab1", "b1"}},
		{"by job", ids(s.EvalsByJob(nil, "default", "web")), []string{"aa1", "ab1"}},
		{"by status", ids(s.EvalsByStatus(nil, structs.EvalStatusBlocked)), []string{"aa2"}},
	}
	for _, tt := range tests {
		if !equalStrings(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestEvalsRelatedToID builds a chain
//
//	e1 -NextEval-> e2 -BlockedEval-> e3 -NextEval-> e4
//
// where only the new evals point back (PreviousEval) in some links, plus an
// unrelated eval of the same job and one of another job.
func TestEvalsRelatedToID(t *testing.T) {
	s := newStore(t)
	e1, e2, e3, e4 := mockEval("e1", "web"), mockEval("e2", "web"), mockEval("e3", "web"), mockEval("e4", "web")
	e1.NextEval = "e2"                           // forward link only
	e2.BlockedEval, e3.PreviousEval = "e3", "e2" // both directions
	e4.PreviousEval = "e3"                       // backward link only
	other := mockEval("other", "web")
	foreign := mockEval("foreign", "db")
	foreign.PreviousEval = "e1" // different job: not followed
	for i, e := range []*structs.Evaluation{e4, e3, other, e1, e2, foreign} {
		must(t, s.UpsertEvals(uint64(10+i), []*structs.Evaluation{e}))
	}
	tests := []struct {
		id   string
		want []string // sorted by CreateIndex
	}{
		{"e1", []string{"e4", "e3", "e2"}},
		{"e3", []string{"e4", "e1", "e2"}},
		{"e4", []string{"e3", "e1", "e2"}},
		{"other", nil},
		{"missing", nil},
	}
	for _, tt := range tests {
		stubs, err := s.EvalsRelatedToID(nil, tt.id)
		must(t, err)
		var got []string
		for _, st := range stubs {
			got = append(got, st.ID)
		}
		if !equalStrings(got, tt.want) {
			t.Errorf("related to %s: got %v, want %v", tt.id, got, tt.want)
		}
	}
}
