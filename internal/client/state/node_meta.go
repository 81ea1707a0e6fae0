package state

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

var (
	bucketNode     = []byte("node")
	keyDynamicMeta = []byte("dynamic_meta")
)

// PutDynamicMeta stores the node's dynamic metadata (set through
// /v1/client/metadata); a nil value records that the key is unset, even
// when the agent configuration sets it.
func (s *Store) PutDynamicMeta(meta map[string]*string) error {
	b, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		bkt, err := tx.CreateBucketIfNotExists(bucketNode)
		if err != nil {
			return err
		}
		return bkt.Put(keyDynamicMeta, b)
	})
}

// DynamicMeta loads what PutDynamicMeta stored (empty when nothing was).
func (s *Store) DynamicMeta() (map[string]*string, error) {
	meta := map[string]*string{}
	err := s.db.View(func(tx *bolt.Tx) error {
		bkt := tx.Bucket(bucketNode)
		if bkt == nil {
			return nil
		}
		if b := bkt.Get(keyDynamicMeta); b != nil {
			return json.Unmarshal(b, &meta)
		}
		return nil
	})
	return meta, err
}
