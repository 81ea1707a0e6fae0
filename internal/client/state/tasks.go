package state

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// taskBucket returns (creating) the bucket of one task of an alloc.
func taskBucket(tx *bolt.Tx, allocID, task string) (*bolt.Bucket, error) {
	ab, err := allocBucket(tx, allocID, true)
	if err != nil {
		return nil, err
	}
	tb, err := ab.CreateBucketIfNotExists(bucketTasks)
	if err != nil {
		return nil, err
	}
	return tb.CreateBucketIfNotExists([]byte(task))
}

func (s *Store) putTask(allocID, task string, key []byte, v any) error {
	if s.discard.Load() {
		return nil // a destroyed client's task deaths: not worth encoding
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.batch(func(tx *bolt.Tx) error {
		b, err := taskBucket(tx, allocID, task)
		if err != nil {
			return err
		}
		return b.Put(key, raw)
	})
}

// PutTaskState stores a task's state (events included).
func (s *Store) PutTaskState(allocID, task string, ts *structs.TaskState) error {
	return s.putTask(allocID, task, keyState, ts)
}

// PutTaskHandle stores the driver handle of a running task; nil clears it
// (the task exited, nothing to re-attach to).
func (s *Store) PutTaskHandle(allocID, task string, h *drivers.TaskHandle) error {
	if h == nil {
		return s.batch(func(tx *bolt.Tx) error {
			b, err := taskBucket(tx, allocID, task)
			if err != nil {
				return err
			}
			return b.Delete(keyHandle)
		})
	}
	return s.putTask(allocID, task, keyHandle, h)
}
