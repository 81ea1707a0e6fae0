package agent

import (
	"reflect"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

func TestEvalList_PaginatesWithNextToken(t *testing.T) {
	_, c := testAgent(t, nil)
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		if _, _, err := c.Jobs().Register(testAPIJob(id), nil); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	token := ""
	for pages := 0; ; pages++ {
		page, meta, err := c.Evaluations().List(&api.QueryOptions{PerPage: 2, NextToken: token})
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if len(page) > 2 {
			t.Fatalf("page of %d items, per_page 2", len(page))
		}
		for _, e := range page {
			seen = append(seen, e.ID)
		}
		token = meta.NextToken
		if token == "" {
			break
		}
		if pages > 5 {
			t.Fatal("pagination does not terminate")
		}
	}
	all, _, _ := c.Evaluations().List(nil)
	if len(seen) != 5 || len(all) != 5 {
		t.Fatalf("paged %d evals, listed %d, want 5", len(seen), len(all))
	}
	unique := map[string]bool{}
	for _, id := range seen {
		unique[id] = true
	}
	if len(unique) != 5 {
		t.Errorf("pages overlap: %v", seen)
	}
}

func TestEvalList_FilterJobAndStatus(t *testing.T) {
	_, c := testAgent(t, nil)
	for _, id := range []string{"web", "db"} {
		if _, _, err := c.Jobs().Register(testAPIJob(id), nil); err != nil {
			t.Fatal(err)
		}
	}
	byFilter, _, err := c.Evaluations().List(&api.QueryOptions{Filter: `JobID == "db"`})
	if err != nil || len(byFilter) != 1 || byFilter[0].JobID != "db" {
		t.Fatalf("filter: %v %+v", err, byFilter)
	}
	byParam, _, err := c.Evaluations().List(&api.QueryOptions{Params: map[string]string{"job": "web", "status": "pending"}})
	if err != nil || len(byParam) != 1 || byParam[0].JobID != "web" {
		t.Fatalf("job/status params: %v %+v", err, byParam)
	}
	none, _, err := c.Evaluations().List(&api.QueryOptions{Params: map[string]string{"status": "complete"}})
	if err != nil || len(none) != 0 {
		t.Fatalf("status=complete: %v %d", err, len(none))
	}
}

func TestJobList_Namespaces(t *testing.T) {
	_, c := testAgent(t, nil)
	if _, err := c.Namespaces().Register(&api.Namespace{Name: "prod"}, nil); err != nil {
		t.Fatal(err)
	}
	job := testAPIJob("web")
	job.Namespace = pointer("prod")
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Jobs().Register(testAPIJob("web"), nil); err != nil {
		t.Fatal(err)
	}
	def, _, _ := c.Jobs().List(nil)
	prod, _, _ := c.Jobs().List(&api.QueryOptions{Namespace: "prod"})
	all, _, _ := c.Jobs().List(&api.QueryOptions{Namespace: "*"})
	if len(def) != 1 || def[0].Namespace != "default" || len(prod) != 1 || prod[0].Namespace != "prod" || len(all) != 2 {
		t.Fatalf("default %d prod %d all %d", len(def), len(prod), len(all))
	}
	got, _, err := c.Jobs().Info("web", &api.QueryOptions{Namespace: "prod"})
	if err != nil || *got.Namespace != "prod" {
		t.Fatalf("info in prod: %v", err)
	}
}

func TestJobVersions_BumpOnChange(t *testing.T) {
	_, c := testAgent(t, nil)
	job := testAPIJob("web")
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	job.TaskGroups[0].Count = pointer(5)
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	versions, _, _, err := c.Jobs().Versions("web", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for _, v := range versions {
		got = append(got, *v.Version)
	}
	if !reflect.DeepEqual(got, []uint64{1, 0}) {
		t.Fatalf("versions = %v, want [1 0]", got)
	}
	if *versions[0].TaskGroups[0].Count != 5 || *versions[1].TaskGroups[0].Count != 3 {
		t.Errorf("version contents wrong")
	}
	_, diffs, _, err := c.Jobs().Versions("web", true, nil)
	if err != nil || len(diffs) != 1 || diffs[0].Type != "Edited" || diffs[0].TaskGroups[0].Fields[0].Name != "Count" {
		t.Fatalf("version diffs: %v %+v", err, diffs)
	}
}

// TestEvalInfo_RelatedEvals follows the PreviousEval / BlockedEval pointers
// of a blocked follow-up eval, written through raft as the scheduler will.
func TestEvalInfo_RelatedEvals(t *testing.T) {
	a, c := testAgent(t, nil)
	resp, _, err := c.Jobs().Register(testAPIJob("web"), nil)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := a.Server().State().EvalByID(nil, resp.EvalID)
	blocked := orig.CreateBlockedEval("blocked-1", nil, false, "", nil, a.Server().Config().Clock.Now())
	done := orig.Copy()
	done.Status, done.BlockedEval = structs.EvalStatusComplete, blocked.ID
	if err := a.Server().UpsertEvals([]*structs.Evaluation{done, blocked}); err != nil {
		t.Fatal(err)
	}
	info, _, err := c.Evaluations().Info(resp.EvalID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.BlockedEval != "blocked-1" || len(info.RelatedEvals) != 1 || info.RelatedEvals[0].ID != "blocked-1" ||
		info.RelatedEvals[0].PreviousEval != resp.EvalID || info.RelatedEvals[0].TriggeredBy != "queued-allocs" {
		t.Fatalf("related evals = %+v (blocked %q)", info.RelatedEvals, info.BlockedEval)
	}
}
