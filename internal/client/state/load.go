package state

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/go-msgpack/v2/codec"
	bolt "go.etcd.io/bbolt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// TaskRecord is what was persisted for one task.
type TaskRecord struct {
	State  *structs.TaskState
	Handle *drivers.TaskHandle
}

// AllocRecord is what was persisted for one alloc.
type AllocRecord struct {
	Alloc      *structs.Allocation
	Deployment *structs.AllocDeploymentStatus
	Tasks      map[string]*TaskRecord
}

// LoadAll returns every persisted alloc. A record that does not decode is
// reported in bad (alloc ID -> error) and skipped, so one corrupt entry
// does not keep the client from starting.
func (s *Store) LoadAll() (records []*AllocRecord, bad map[string]error, err error) {
	bad = map[string]error{}
	err = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAllocs).ForEachBucket(func(k []byte) error {
			rec, err := loadAlloc(tx.Bucket(bucketAllocs).Bucket(k))
			if err != nil {
				bad[string(k)] = err
				return nil
			}
			records = append(records, rec)
			return nil
		})
	})
	return records, bad, err
}

func loadAlloc(b *bolt.Bucket) (*AllocRecord, error) {
	raw := b.Get(keyAlloc)
	if raw == nil {
		return nil, fmt.Errorf("no alloc stored")
	}
	rec := &AllocRecord{Alloc: &structs.Allocation{}, Tasks: map[string]*TaskRecord{}}
	if err := codec.NewDecoder(bytes.NewReader(raw), structs.MsgpackHandle).Decode(rec.Alloc); err != nil {
		return nil, fmt.Errorf("decode alloc: %w", err)
	}
	if raw := b.Get(keyDeploy); raw != nil {
		rec.Deployment = &structs.AllocDeploymentStatus{}
		if err := json.Unmarshal(raw, rec.Deployment); err != nil {
			return nil, fmt.Errorf("decode deployment status: %w", err)
		}
	}
	tb := b.Bucket(bucketTasks)
	if tb == nil {
		return rec, nil
	}
	err := tb.ForEachBucket(func(name []byte) error {
		tr, err := loadTask(tb.Bucket(name))
		if err != nil {
			return fmt.Errorf("task %s: %w", name, err)
		}
		rec.Tasks[string(name)] = tr
		return nil
	})
	return rec, err
}

func loadTask(b *bolt.Bucket) (*TaskRecord, error) {
	tr := &TaskRecord{}
	if raw := b.Get(keyState); raw != nil {
		tr.State = &structs.TaskState{}
		if err := json.Unmarshal(raw, tr.State); err != nil {
			return nil, fmt.Errorf("decode state: %w", err)
		}
	}
	if raw := b.Get(keyHandle); raw != nil {
		tr.Handle = &drivers.TaskHandle{}
		if err := json.Unmarshal(raw, tr.Handle); err != nil {
			return nil, fmt.Errorf("decode handle: %w", err)
		}
	}
	return tr, nil
}
