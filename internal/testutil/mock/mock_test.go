package mock

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// The fixtures are valid as they are: a test that changes one field is
// testing that field, not a broken fixture.
func TestFixturesAreValid(t *testing.T) {
	job := Job("web")
	if err := job.Validate(); err != nil {
		t.Fatalf("Job: %v", err)
	}
	node := Node("00000000-0000-4000-8000-000000000001") // registration wants a UUID
	if err := node.Validate(); err != nil {
		t.Fatalf("Node: %v", err)
	}
	a := Alloc("a1", job, node.ID)
	if a.Group() != job.TaskGroups[0] || a.AllocatedResources.Tasks["web"].CpuShares != 500 {
		t.Fatalf("Alloc = %+v", a)
	}
	e := Eval("e1", job, structs.EvalTriggerJobRegister)
	e.CreateTime, e.ModifyTime = 1, 1
	if err := e.Validate(); err != nil {
		t.Fatalf("Eval: %v", err)
	}
}

func TestFixturesAreFresh(t *testing.T) {
	a, b := Job("web"), Job("web")
	a.TaskGroups[0].Count = 9
	if b.TaskGroups[0].Count != 1 {
		t.Fatal("two Job calls share state")
	}
}

// JobSpec is Job before canonicalization: canonicalizing it gives Job.
func TestJobSpecCanonicalizesToJob(t *testing.T) {
	spec := JobSpec("web")
	if spec.Namespace != "" || spec.Priority != 0 {
		t.Fatalf("JobSpec has defaults filled in: namespace %q, priority %d", spec.Namespace, spec.Priority)
	}
	spec.Canonicalize()
	if !reflect.DeepEqual(spec, Job("web")) {
		t.Fatalf("canonicalized JobSpec = %+v, want Job", spec)
	}
}
