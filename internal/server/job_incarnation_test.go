package server

import (
	"context"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A job purged and registered again under the same ID before the purge's
// eval runs: the evals that then run see the new incarnation, and must
// still stop every alloc of the old one (issue 27). Before the fix the
// schedulers read only the allocs of the job's current CreateIndex, so
// the old allocs ran for ever next to the new ones. The old incarnation's
// allocs must not count for the new one either: it places its own full
// count, and a finished batch alloc of the old one does not finish it.
func TestJobIncarnation_PurgedAndRegisteredAgainStopsTheOldAllocs(t *testing.T) {
	for _, typ := range []string{structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem} {
		t.Run(typ, func(t *testing.T) {
			s := realServer(t, func(c *Config) { c.ManualDuties = true })
			for i := 1; i <= 2; i++ {
				if _, err := s.RegisterNode(e2eNode(i, 4000, 8192)); err != nil {
					t.Fatal(err)
				}
			}
			job := func() *structs.Job {
				j := e2eJob("web", 2, 100, 64)
				j.Type = typ
				if typ == structs.JobTypeSystem {
					j.TaskGroups[0].Count = 1
				}
				return j
			}
			ctx := context.Background()
			if _, err := JobRegister.Call(ctx, s, &structs.JobRegisterArgs{Job: job()}); err != nil {
				t.Fatal(err)
			}
			runSteps(t, s)
			old := liveAllocs(t, s, "web")
			if len(old) != 2 {
				t.Fatalf("first incarnation runs %d allocs, want 2", len(old))
			}
			// One of them has finished: it must not count for the new incarnation.
			done := &structs.Allocation{ID: old[0].ID, ClientStatus: structs.AllocClientStatusComplete}
			if _, err := s.raftApply(ctx, structs.AllocClientUpdateRequestType, &structs.AllocUpdateRequest{Allocs: []*structs.Allocation{done}}); err != nil {
				t.Fatal(err)
			}
			if _, err := JobDeregister.Call(ctx, s, &structs.JobDeregisterArgs{JobID: "web", Purge: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := JobRegister.Call(ctx, s, &structs.JobRegisterArgs{Job: job()}); err != nil {
				t.Fatal(err)
			}
			runSteps(t, s)

			for _, a := range old[1:] {
				cur, err := s.State().AllocByID(nil, a.ID)
				if err != nil {
					t.Fatal(err)
				}
				if cur.DesiredStatus != structs.AllocDesiredStatusStop {
					t.Errorf("alloc %s of the purged incarnation is still desired %s", a.ID, cur.DesiredStatus)
				}
			}
			all, err := s.State().AllocsByJob(nil, "default", "web", true)
			if err != nil {
				t.Fatal(err)
			}
			j, _ := s.State().JobByID(nil, "default", "web")
			var running int
			for _, a := range all {
				if !a.TerminalStatus() && a.Job.CreateIndex == j.CreateIndex {
					running++
				}
			}
			if running != 2 {
				t.Errorf("new incarnation runs %d allocs, want 2", running)
			}
		})
	}
}
