package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/go-msgpack/v2/codec"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/drover-project/drover/internal/structs"
)

// allocBucket returns the alloc's bucket, creating it when create is set;
// nil when it does not exist.
func allocBucket(tx *bolt.Tx, allocID string, create bool) (*bolt.Bucket, error) {
	root := tx.Bucket(bucketAllocs)
	if create {
		return root.CreateBucketIfNotExists([]byte(allocID))
	}
	return root.Bucket([]byte(allocID)), nil
}

// PutAlloc stores the alloc as the server sent it. msgpack (the server's
// encoding) keeps Task.Config's values in the shapes drivers decode.
func (s *Store) PutAlloc(alloc *structs.Allocation) error {
	return s.PutAllocs([]*structs.Allocation{alloc})
}

// PutAllocs stores several allocs in one write: a client handed
// thousands of allocs at once would otherwise wait for a transaction
// (and bbolt's batch delay) per alloc.
func (s *Store) PutAllocs(allocs []*structs.Allocation) error {
	encoded := make([][]byte, len(allocs))
	for i, a := range allocs {
		var buf bytes.Buffer
		if err := codec.NewEncoder(&buf, structs.MsgpackHandle).Encode(a); err != nil {
			return fmt.Errorf("encode alloc %s: %w", a.ID, err)
		}
		encoded[i] = buf.Bytes()
	}
	return s.batch(func(tx *bolt.Tx) error {
		for i, a := range allocs {
			b, err := allocBucket(tx, a.ID, true)
			if err != nil {
				return err
			}
			if err := b.Put(keyAlloc, encoded[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// PutDeploymentStatus stores the health this client decided for an alloc,
// so a restarted client neither re-decides nor forgets it.
func (s *Store) PutDeploymentStatus(allocID string, ds *structs.AllocDeploymentStatus) error {
	return s.putJSON(allocID, keyDeploy, ds)
}

func (s *Store) putJSON(allocID string, key []byte, v any) error {
	if s.discard.Load() {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.batch(func(tx *bolt.Tx) error {
		b, err := allocBucket(tx, allocID, true)
		if err != nil {
			return err
		}
		return b.Put(key, raw)
	})
}

// DeleteAlloc forgets an alloc and its tasks.
func (s *Store) DeleteAlloc(allocID string) error {
	return s.batch(func(tx *bolt.Tx) error {
		err := tx.Bucket(bucketAllocs).DeleteBucket([]byte(allocID))
		if errors.Is(err, berrors.ErrBucketNotFound) {
			return nil
		}
		return err
	})
}
