package state

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// registerVersions registers n changed versions of job "web" from index start.
func registerVersions(t *testing.T, s *StateStore, start uint64, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		j := mockJob("web")
		j.TaskGroups[0].Count = int(start) + i
		must(t, s.UpsertJobEntry(start+uint64(i), &structs.JobRegisterRequest{Job: j,
			Submission: &structs.JobSubmission{Source: "v", Format: "hcl2"}}))
	}
}

func TestJobVersions_TaggedVersionOutlivesThePruneAndSubmissionsFollow(t *testing.T) {
	s := newStore(t)
	registerVersions(t, s, 10, 2) // versions 0, 1
	must(t, s.TagJobVersion(20, &structs.JobVersionTagRequest{Namespace: "default", JobID: "web", Version: 0, Name: "golden",
		Tag: &structs.JobVersionTag{Name: "golden", Description: "known good"}}))
	registerVersions(t, s, 30, JobTrackedVersions+2) // versions 2..9
	versions, err := s.JobVersionsByID(nil, "default", "web")
	must(t, err)
	var kept []uint64
	for _, v := range versions {
		kept = append(kept, v.Version)
	}
	// Newest first: the tracked newest, plus tagged version 0.
	if len(versions) != JobTrackedVersions+1 || versions[len(versions)-1].Version != 0 || versions[len(versions)-1].VersionTag.Name != "golden" {
		t.Fatalf("versions kept: %v", kept)
	}
	if sub, _ := s.JobSubmission(nil, "default", "web", 1); sub != nil {
		t.Fatal("the pruned version's submission is still stored")
	}
	if sub, _ := s.JobSubmission(nil, "default", "web", 9); sub == nil || sub.Source != "v" || sub.Version != 9 {
		t.Fatalf("current version's submission: %+v", sub)
	}
}

func TestJobVersionTag_NamesAreUniqueAndUntagRemoves(t *testing.T) {
	s := newStore(t)
	registerVersions(t, s, 10, 2)
	tag := func(idx, version uint64) {
		must(t, s.TagJobVersion(idx, &structs.JobVersionTagRequest{Namespace: "default", JobID: "web", Version: version, Name: "x",
			Tag: &structs.JobVersionTag{Name: "x"}}))
	}
	tag(20, 0)
	tag(21, 1) // moves the name to version 1
	v0, _ := s.JobByIDAndVersion(nil, "default", "web", 0)
	v1, _ := s.JobByIDAndVersion(nil, "default", "web", 1)
	cur, _ := s.JobByID(nil, "default", "web")
	if v0.VersionTag != nil || v1.VersionTag == nil || cur.VersionTag == nil {
		t.Fatalf("tag after move: v0 %v v1 %v current %v", v0.VersionTag, v1.VersionTag, cur.VersionTag)
	}
	// Re-registering the same spec keeps what was said about the version.
	j := mockJob("web")
	j.TaskGroups[0].Count = 11
	must(t, s.UpsertJob(22, 0, j))
	if cur, _ = s.JobByID(nil, "default", "web"); cur.Version != 1 || cur.VersionTag == nil {
		t.Fatalf("unchanged re-register lost the tag: %+v", cur.VersionTag)
	}
	must(t, s.TagJobVersion(23, &structs.JobVersionTagRequest{Namespace: "default", JobID: "web", Name: "x"}))
	if cur, _ = s.JobByID(nil, "default", "web"); cur.VersionTag != nil {
		t.Fatal("untag left the tag")
	}
}

func TestJobStability_VersionAndCurrentJob(t *testing.T) {
	s := newStore(t)
	registerVersions(t, s, 10, 2)
	must(t, s.UpdateJobStability(20, &structs.JobStabilityRequest{Namespace: "default", JobID: "web", Version: 0, Stable: true}))
	v0, _ := s.JobByIDAndVersion(nil, "default", "web", 0)
	cur, _ := s.JobByID(nil, "default", "web")
	if !v0.Stable || cur.Stable {
		t.Fatalf("version 0 stable %v, current (1) stable %v", v0.Stable, cur.Stable)
	}
	must(t, s.UpdateJobStability(21, &structs.JobStabilityRequest{Namespace: "default", JobID: "web", Version: 1, Stable: true}))
	if cur, _ = s.JobByID(nil, "default", "web"); !cur.Stable || cur.ModifyIndex != 21 {
		t.Fatalf("current job: stable %v modify %d", cur.Stable, cur.ModifyIndex)
	}
}

func TestScalingEvents_NewestFirstCappedAndPurged(t *testing.T) {
	s := newStore(t)
	for i := 0; i < structs.JobTrackedScalingEvents+5; i++ {
		j := mockJob("web")
		n := int64(i)
		j.TaskGroups[0].Count = i + 1
		must(t, s.UpsertJobEntry(uint64(10+i), &structs.JobRegisterRequest{Job: j,
			ScalingEvent: &structs.ScalingEventEntry{Group: j.TaskGroups[0].Name, Event: &structs.ScalingEvent{Count: &n}}}))
	}
	ev, err := s.ScalingEventsByJob(nil, "default", "web")
	must(t, err)
	list := ev.ScalingEvents[mockJob("web").TaskGroups[0].Name]
	if len(list) != structs.JobTrackedScalingEvents || *list[0].Count != int64(structs.JobTrackedScalingEvents+4) || list[0].CreateIndex == 0 {
		t.Fatalf("events: %d, newest %v", len(list), *list[0].Count)
	}
	must(t, s.DeleteJob(100, "default", "web"))
	if ev, _ := s.ScalingEventsByJob(nil, "default", "web"); ev != nil {
		t.Fatal("purge left scaling events")
	}
	if sub, _ := s.JobSubmission(nil, "default", "web", 0); sub != nil {
		t.Fatal("purge left submissions")
	}
}
