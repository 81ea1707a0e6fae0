package state

import (
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// Tables of what a job remembers beside its versions (see
// structs/job_history.go): scaling events and submitted sources.
const (
	TableScalingEvent  = "scaling_event"
	TableJobSubmission = "job_submission"
)

func scalingEventTable() *memdb.TableSchema {
	return &memdb.TableSchema{Name: TableScalingEvent, Indexes: map[string]*memdb.IndexSchema{
		"id": unique("id", nsAnd("JobID")),
	}}
}

func jobSubmissionTable() *memdb.TableSchema {
	id := &memdb.CompoundIndex{Indexes: []memdb.Indexer{
		str("Namespace"), str("JobID"), &memdb.UintFieldIndex{Field: "Version"},
	}}
	return &memdb.TableSchema{Name: TableJobSubmission, Indexes: map[string]*memdb.IndexSchema{
		"id":  unique("id", id),
		"job": {Name: "job", Indexer: nsAnd("JobID")},
	}}
}

// recordJobHistory stores what a register entry carries beside the job:
// the submitted source of the version it wrote and a scaling event.
func (tx *writeTxn) recordJobHistory(stored *structs.Job, sub *structs.JobSubmission, ev *structs.ScalingEventEntry) error {
	if sub != nil {
		c := sub.Copy()
		c.Namespace, c.JobID, c.Version = stored.Namespace, stored.ID, stored.Version
		if err := tx.insert(TableJobSubmission, c); err != nil {
			return err
		}
	}
	if ev != nil && ev.Event != nil {
		if err := tx.addScalingEvent(stored.Namespace, stored.ID, ev.Group, ev.Event); err != nil {
			return err
		}
	}
	return nil
}

// addScalingEvent prepends an event to the group's list, keeping the
// newest structs.JobTrackedScalingEvents.
func (tx *writeTxn) addScalingEvent(namespace, jobID, group string, ev *structs.ScalingEvent) error {
	existing, err := first[structs.JobScalingEvents](tx.Txn, nil, TableScalingEvent, "id", namespace, jobID)
	if err != nil {
		return err
	}
	events := existing.Copy()
	if events == nil {
		events = &structs.JobScalingEvents{Namespace: namespace, JobID: jobID, ScalingEvents: map[string][]*structs.ScalingEvent{}}
	}
	e := ev.Copy()
	e.CreateIndex = tx.index
	list := append([]*structs.ScalingEvent{e}, events.ScalingEvents[group]...)
	events.ScalingEvents[group] = list[:min(len(list), structs.JobTrackedScalingEvents)]
	events.ModifyIndex = tx.index
	return tx.insert(TableScalingEvent, events)
}

// pruneSubmissions drops the sources of versions no longer kept.
func (tx *writeTxn) pruneSubmissions(namespace, jobID string, kept []*structs.Job) error {
	subs, err := list[structs.JobSubmission](tx.Txn, nil, TableJobSubmission, "job", namespace, jobID)
	if err != nil {
		return err
	}
	for _, s := range subs {
		if !slices.ContainsFunc(kept, func(v *structs.Job) bool { return v.Version == s.Version }) {
			if err := tx.remove(TableJobSubmission, s); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteJobHistory removes a purged job's events and sources.
func (tx *writeTxn) deleteJobHistory(namespace, jobID string) error {
	if ev, err := first[structs.JobScalingEvents](tx.Txn, nil, TableScalingEvent, "id", namespace, jobID); err != nil {
		return err
	} else if ev != nil {
		if err := tx.remove(TableScalingEvent, ev); err != nil {
			return err
		}
	}
	return tx.pruneSubmissions(namespace, jobID, nil)
}

// ScalingEventsByJob returns a job's scaling events (nil when none).
func (r reader) ScalingEventsByJob(ws memdb.WatchSet, namespace, jobID string) (*structs.JobScalingEvents, error) {
	return first[structs.JobScalingEvents](r.txn(), ws, TableScalingEvent, "id", namespace, jobID)
}

// JobSubmission returns the source a job version was submitted as (nil
// when it was submitted without one, or the version is gone).
func (r reader) JobSubmission(ws memdb.WatchSet, namespace, jobID string, version uint64) (*structs.JobSubmission, error) {
	return first[structs.JobSubmission](r.txn(), ws, TableJobSubmission, "id", namespace, jobID, version)
}

// UpdateJobStability marks a job version stable or not, on the version
// row and, when it is the current version, on the job.
func (s *StateStore) UpdateJobStability(index uint64, req *structs.JobStabilityRequest) error {
	return s.write(index, func(tx *writeTxn) error {
		return tx.updateVersion(req.Namespace, req.JobID, req.Version, func(j *structs.Job) { j.Stable = req.Stable })
	})
}

// TagJobVersion sets (or, with req.Tag nil, removes by name) a version tag.
// A tag name is unique within a job.
func (s *StateStore) TagJobVersion(index uint64, req *structs.JobVersionTagRequest) error {
	return s.write(index, func(tx *writeTxn) error {
		versions, err := jobVersions(tx.Txn, nil, req.Namespace, req.JobID)
		if err != nil {
			return err
		}
		for _, v := range versions {
			if v.VersionTag != nil && v.VersionTag.Name == req.Name && (req.Tag == nil || v.Version != req.Version) {
				if err := tx.updateVersion(req.Namespace, req.JobID, v.Version, func(j *structs.Job) { j.VersionTag = nil }); err != nil {
					return err
				}
			}
		}
		if req.Tag == nil {
			return nil
		}
		return tx.updateVersion(req.Namespace, req.JobID, req.Version, func(j *structs.Job) { j.VersionTag = req.Tag.Copy() })
	})
}

// updateVersion rewrites one stored version (and the job row when that is
// the current version) with change applied to a copy.
func (tx *writeTxn) updateVersion(namespace, jobID string, version uint64, change func(*structs.Job)) error {
	v, err := first[structs.Job](tx.Txn, nil, TableJobVersion, "id", namespace, jobID, version)
	if err != nil || v == nil {
		return err
	}
	c := v.Copy()
	change(c)
	if err := tx.insert(TableJobVersion, c); err != nil {
		return err
	}
	cur, err := tx.jobByID(namespace, jobID)
	if err != nil || cur == nil || cur.Version != version {
		return err
	}
	cc := cur.Copy()
	change(cc)
	cc.ModifyIndex = tx.index
	return tx.insert(TableJobs, cc)
}
