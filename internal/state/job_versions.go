package state

import (
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

// JobTrackedVersions is how many versions of a job the store keeps.
const JobTrackedVersions = 6

// insertJobVersion records job as its version (replacing the row of an
// unchanged re-register) and drops the oldest versions beyond the cap.
func (tx *writeTxn) insertJobVersion(job *structs.Job) error {
	if err := tx.insert(TableJobVersion, job); err != nil {
		return err
	}
	versions, err := jobVersions(tx.Txn, nil, job.Namespace, job.ID)
	if err != nil {
		return err
	}
	// Drop the oldest untagged versions beyond the cap: a tagged version
	// is kept for as long as it is tagged, and does not count.
	untagged := 0
	for _, v := range versions {
		if v.VersionTag == nil {
			untagged++
		}
	}
	for i := 0; untagged > JobTrackedVersions && i < len(versions); {
		if versions[i].VersionTag != nil {
			i++
			continue
		}
		if err := tx.remove(TableJobVersion, versions[i]); err != nil {
			return err
		}
		versions = slices.Delete(versions, i, i+1)
		untagged--
	}
	return tx.pruneSubmissions(job.Namespace, job.ID, versions)
}

// jobVersions returns the stored versions of a job, oldest first.
func jobVersions(txn *memdb.Txn, ws memdb.WatchSet, namespace, id string) ([]*structs.Job, error) {
	return list[structs.Job](txn, ws, TableJobVersion, "job", namespace, id)
}

// JobVersionsByID returns the stored versions of a job, newest first.
func (r reader) JobVersionsByID(ws memdb.WatchSet, namespace, id string) ([]*structs.Job, error) {
	versions, err := jobVersions(r.txn(), ws, namespace, id)
	slices.Reverse(versions)
	return versions, err
}

// JobByIDAndVersion returns one version of a job, or nil if it is not kept.
func (r reader) JobByIDAndVersion(ws memdb.WatchSet, namespace, id string, version uint64) (*structs.Job, error) {
	return first[structs.Job](r.txn(), ws, TableJobVersion, "id", namespace, id, version)
}
