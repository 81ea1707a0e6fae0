package state

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// JobsByType and JobsByStatus give what the full "type" and "status"
// indexes gave (every job of the type or status, in namespace and ID
// order) while the jobs table indexes only system and sysbatch types:
// held to a filter of every job over random registers, stops, type
// changes and purges.
func TestJobsByTypeAndStatus_SameAsFilteringEveryJob(t *testing.T) {
	s := newStore(t)
	r := rand.New(rand.NewPCG(7, 8))
	types := []string{structs.JobTypeService, structs.JobTypeBatch, structs.JobTypeSystem, structs.JobTypeSysBatch}
	namespaces := []string{"default", "default2", "prod"}
	index := uint64(100)
	for step := range 400 {
		index++
		ns, id := namespaces[r.IntN(len(namespaces))], fmt.Sprintf("job-%d", r.IntN(40))
		if r.IntN(10) == 0 {
			if err := s.DeleteJob(index, ns, id); err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
		} else {
			j := &structs.Job{ID: id, Name: id, Namespace: ns, Type: types[r.IntN(len(types))], Priority: 50, Stop: r.IntN(4) == 0,
				TaskGroups: []*structs.TaskGroup{{Name: "g", Count: 1}}}
			must(t, s.UpsertJob(index, 1, j))
		}
		if step%20 != 0 {
			continue
		}
		all, err := s.Jobs(nil, AllNamespaces)
		must(t, err)
		indexed, err := list[structs.Job](s.Snapshot().txn(), nil, TableJobs, "type")
		must(t, err)
		for _, j := range indexed {
			if !indexedJobType(j.Type) {
				t.Fatalf("step %d: %s job %s/%s is in the type index", step, j.Type, j.Namespace, j.ID)
			}
		}
		for _, typ := range types {
			got, err := s.JobsByType(nil, typ)
			must(t, err)
			if want := filterJobs(all, func(j *structs.Job) bool { return j.Type == typ }); !slices.Equal(jobKeys(got), jobKeys(want)) {
				t.Fatalf("step %d: JobsByType(%s) = %v, want %v", step, typ, jobKeys(got), jobKeys(want))
			}
		}
		for _, status := range []string{structs.JobStatusPending, structs.JobStatusRunning, structs.JobStatusDead} {
			got, err := s.JobsByStatus(nil, status)
			must(t, err)
			if want := filterJobs(all, func(j *structs.Job) bool { return j.Status == status }); !slices.Equal(jobKeys(got), jobKeys(want)) {
				t.Fatalf("step %d: JobsByStatus(%s) = %v, want %v", step, status, jobKeys(got), jobKeys(want))
			}
		}
	}
}

func filterJobs(jobs []*structs.Job, keep func(*structs.Job) bool) (out []*structs.Job) {
	for _, j := range jobs {
		if keep(j) {
			out = append(out, j)
		}
	}
	return out
}

func jobKeys(jobs []*structs.Job) (out []string) {
	for _, j := range jobs {
		out = append(out, fmt.Sprintf("%s/%s@%d", j.Namespace, j.ID, j.ModifyIndex))
	}
	return out
}
