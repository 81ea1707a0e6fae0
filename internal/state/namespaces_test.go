package state

import (
	"errors"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestNamespaces_DefaultIsBuiltInAndDeleteNeedsEmpty(t *testing.T) {
	s, err := NewStateStore()
	must(t, err)
	ns, err := s.NamespaceByName(nil, "default")
	if err != nil || ns == nil || ns.Description != structs.DefaultNamespaceDescription {
		t.Fatalf("default namespace: %+v %v", ns, err)
	}
	must(t, s.UpsertNamespaces(5, []*structs.Namespace{{Name: "prod"}, {Name: "dev"}}))
	must(t, s.UpsertNamespaces(6, []*structs.Namespace{{Name: "prod", Description: "new"}}))
	prod, _ := s.NamespaceByName(nil, "prod")
	if prod.CreateIndex != 5 || prod.ModifyIndex != 6 || prod.Description != "new" {
		t.Fatalf("prod after update: %+v", prod)
	}
	all, _ := s.Namespaces(nil, "")
	if len(all) != 3 || all[0].Name != "default" || all[1].Name != "dev" || all[2].Name != "prod" {
		t.Fatalf("list: %v", all)
	}
	if got, _ := s.Namespaces(nil, "pr"); len(got) != 1 {
		t.Fatalf("prefix list: %v", got)
	}
	job := mockJob("web")
	job.Namespace = "prod"
	must(t, s.UpsertJob(7, 1, job))
	if err := s.DeleteNamespaces(8, []string{"dev", "prod"}); !errors.Is(err, ErrNamespaceNotEmpty) {
		t.Fatalf("delete with jobs: %v", err)
	}
	if dev, _ := s.NamespaceByName(nil, "dev"); dev == nil {
		t.Fatal("a refused delete removed dev")
	}
	if err := s.DeleteNamespaces(8, []string{"default"}); err == nil {
		t.Fatal("default deleted")
	}
	must(t, s.DeleteNamespaces(9, []string{"dev"}))
	if dev, _ := s.NamespaceByName(nil, "dev"); dev != nil {
		t.Fatal("dev survived its delete")
	}
}

// The register entry re-checks the namespace, so a job registered after a
// namespace was deleted (the endpoint's check raced the delete) is refused
// and nothing is written.
func TestUpsertJobEntry_RefusesAMissingNamespace(t *testing.T) {
	s := newStore(t)
	job := mockJob("web")
	job.Namespace = "gone"
	err := s.UpsertJobEntry(10, &structs.JobRegisterRequest{Job: job})
	if !errors.Is(err, ErrNamespaceMissing) {
		t.Fatalf("register in a missing namespace: %v", err)
	}
	if j, _ := s.JobByID(nil, "gone", "web"); j != nil || s.LatestIndex() == 10 {
		t.Fatal("the refused entry wrote something")
	}
	must(t, s.UpsertNamespaces(11, []*structs.Namespace{{Name: "gone"}}))
	must(t, s.UpsertJobEntry(12, &structs.JobRegisterRequest{Job: job}))
}
