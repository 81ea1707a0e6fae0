package state

import (
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestNodePools_BuiltinsRegisteredPoolsAndDeleteRules(t *testing.T) {
	s := newStore(t)
	pools, err := s.NodePools(nil, "")
	must(t, err)
	if len(pools) != 2 || pools[0].Name != "all" || pools[1].Name != "default" {
		t.Fatalf("built-ins: %+v", pools)
	}
	// A node registering into an unknown pool creates it.
	n := mockNode("n1")
	n.NodePool = "edge"
	must(t, s.UpsertNode(10, n))
	edge, err := s.NodePoolByName(nil, "edge")
	must(t, err)
	if edge == nil || edge.CreateIndex != 10 {
		t.Fatalf("pool created by registration: %+v", edge)
	}
	if err := s.DeleteNodePools(11, []string{"edge"}); err == nil || !strings.Contains(err.Error(), "1 nodes") {
		t.Fatalf("deleting a pool with nodes: %v", err)
	}
	if err := s.DeleteNodePools(11, []string{"default"}); err == nil || !strings.Contains(err.Error(), "built in") {
		t.Fatalf("deleting a built-in: %v", err)
	}
	must(t, s.UpsertNodePools(12, []*structs.NodePool{{Name: "spare"}}))
	job := mockJob("web")
	job.NodePool = "spare"
	must(t, s.UpsertJob(13, 0, job))
	if err := s.DeleteNodePools(14, []string{"spare"}); err == nil || !strings.Contains(err.Error(), "1 jobs") {
		t.Fatalf("deleting a pool with jobs: %v", err)
	}
	must(t, s.DeleteJob(15, "default", "web"))
	must(t, s.DeleteNodePools(16, []string{"spare"}))
	if p, _ := s.NodePoolByName(nil, "spare"); p != nil {
		t.Fatal("deleted pool still there")
	}
}
