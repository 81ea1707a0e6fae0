package state

import (
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-memdb"
	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/drover-project/drover/internal/structs"
)

// recordType tags each record of a snapshot stream with its table. The
// values are persisted in raft snapshots: append only, never renumber.
type recordType uint8

// snapshotTable says how one table is written to and read from a snapshot.
type snapshotTable struct {
	tag   recordType
	table string
	new   func() any // a fresh object to decode a record into
}

// snapshotTables lists every table. Persist writes them in this order;
// Restore accepts records in any order. Allocs are written as compact
// records (persist_allocs.go, tags 9 and 10); Restore still reads tag 5.
var snapshotTables = []snapshotTable{
	{1, TableIndex, func() any { return new(IndexEntry) }},
	{2, TableJobs, func() any { return new(structs.Job) }},
	{3, TableJobVersion, func() any { return new(structs.Job) }},
	{4, TableNodes, func() any { return new(structs.Node) }},
	{5, TableAllocs, func() any { return new(structs.Allocation) }},
	{6, TableEvals, func() any { return new(structs.Evaluation) }},
	{7, TableDeployment, func() any { return new(structs.Deployment) }},
	{8, TableSchedulerConfig, func() any { return new(structs.SchedulerConfiguration) }},
	// ACL tags are numbered apart so tables added in parallel do not collide.
	{40, TableACLPolicies, func() any { return new(structs.ACLPolicy) }},
	{41, TableACLTokens, func() any { return new(structs.ACLToken) }},
	{94, TableACLRoles, func() any { return new(structs.ACLRole) }}, // 94: set aside for roles
	// Auth methods, binding rules, one-time tokens: 200-202, clear of
	// every other range.
	{200, TableACLAuthMethods, func() any { return new(structs.ACLAuthMethod) }},
	{201, TableACLBindingRules, func() any { return new(structs.ACLBindingRule) }},
	{202, TableOneTimeTokens, func() any { return new(structs.OneTimeToken) }},
	{203, TableOIDCRequests, func() any { return new(structs.OIDCAuthRequest) }},
	{30, TableScalingEvent, func() any { return new(structs.JobScalingEvents) }},
	{31, TableJobSubmission, func() any { return new(structs.JobSubmission) }},
	{32, TableNodePools, func() any { return new(structs.NodePool) }},
	{20, TableNamespaces, func() any { return new(structs.Namespace) }}, // 20: clear of tags added after 8 elsewhere
	{60, TableServiceRegistrations, func() any { return new(structs.ServiceRegistration) }},
	{61, TableVariables, func() any { return new(structs.VariableEncrypted) }},
	{62, TableRootKeys, func() any { return new(structs.RootKey) }},
	{92, TableAutopilotConfig, func() any { return new(structs.AutopilotConfig) }},
}

func snapshotTableByTag(tag recordType) (snapshotTable, bool) {
	for _, t := range snapshotTables {
		if t.tag == tag {
			return t, true
		}
	}
	return snapshotTable{}, false
}

// Persist writes every table of the snapshot to w as a msgpack stream of
// (tag, object) pairs, in table order and, within a table, in ID order.
// Objects are encoded with snapshotHandle.
func (r reader) Persist(w io.Writer) error {
	return r.persist(w, snapshotHandle)
}

// snapshotHandle encodes snapshots: each struct as an array of its fields
// in declaration order (structs.StructArrayHandle), as raft entries are.
// The first snapshot format keyed each field by its name: the names were
// half of a million-alloc snapshot's bytes, and matching them a third of
// its restore's decoding. Restore decodes both forms (a struct is a map
// or an array in the stream), so snapshots of either restore, and the
// record tags are the same in both. Each field's position is part of the
// format: fields of a struct a snapshot can hold are only ever appended
// (TestSnapshotFields_OnlyEverAppended, testdata/snapshot_fields.golden).
var snapshotHandle = structs.StructArrayHandle

// persist is Persist with the handle to encode with (tests use one that
// sorts map keys, to compare snapshots byte for byte).
func (r reader) persist(w io.Writer, h *codec.MsgpackHandle) error {
	txn := r.txn()
	enc := codec.NewEncoder(w, h)
	for _, t := range snapshotTables {
		if err := persistTable(txn, enc, t); err != nil {
			return fmt.Errorf("persisting %s: %w", t.table, err)
		}
	}
	return nil
}

func persistTable(txn *memdb.Txn, enc *codec.Encoder, t snapshotTable) error {
	if t.table == TableAllocs {
		return persistAllocs(txn, enc)
	}
	it, err := txn.Get(t.table, "id")
	if err != nil {
		return err
	}
	for obj := it.Next(); obj != nil; obj = it.Next() {
		if err := enc.Encode(t.tag); err != nil {
			return err
		}
		if err := enc.Encode(obj); err != nil {
			return err
		}
	}
	return nil
}

// Restore replaces the store's contents with a Persist stream. The stream
// is loaded into a new database, which is swapped in only once complete,
// so readers see the old state or the new one, never a mix; on error the
// store is unchanged. AbandonCh is then closed to wake blocking queries
// watching the old database.
func (s *StateStore) Restore(r io.Reader) error {
	db, err := memdb.NewMemDB(stateSchema())
	if err != nil {
		return err
	}
	txn := &restoreTxn{db: db, Txn: db.Txn(true)}
	defer func() { txn.Abort() }()
	allocs := newAllocRestorer()
	dec := codec.NewDecoder(r, restoreHandle)
	defer dec.Release()
	if err := restoreRecords(txn, dec, allocs); err != nil {
		return err
	}
	if err := allocs.finish(txn); err != nil {
		return err
	}
	if err := rebuildNodeUsage(txn); err != nil {
		return err
	}
	txn.Commit()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.swap(db)
	return nil
}

// restoreHandle decodes snapshots: structs.MsgpackHandle's settings (it
// decodes structs of either form) reading through a buffer of its own.
// Without one the decoder reads the stream a byte at a time through
// io.Reader calls (raft's snapshot file is no io.ByteScanner). The buffer
// is released explicitly: by default the decoder drops it after each
// Decode call, and what it had read ahead with it.
var restoreHandle = func() *codec.MsgpackHandle {
	h := &codec.MsgpackHandle{}
	h.RawToString = structs.MsgpackHandle.RawToString
	h.WriteExt = structs.MsgpackHandle.WriteExt
	h.MapType = structs.MsgpackHandle.MapType
	h.ReaderBufferSize = 1 << 16
	h.ExplicitRelease = true
	return h
}()

// restoreTxn loads a new database in transactions of restoreBatch
// inserts. Nobody sees the database before Restore swaps it in, so
// committing part of it early is harmless, and each transaction must stay
// small: go-immutable-radix tracks the watch channels a transaction
// replaces, up to 8,192 per index, and past that walks the whole old and
// new tree at commit to find them (slowNotify). A transaction of 4,096
// allocs replaced about 4 nodes per alloc in the node and job indexes, so
// every commit walked every index entry restored so far: restoring a
// million allocs spent over 90% of its time there, quadratic in the allocs.
// One big transaction overflowed once but evicted nodes from the radix
// cache of writable nodes (also 8,192) and copied them again.
type restoreTxn struct {
	*memdb.Txn
	db      *memdb.MemDB
	written int
}

// restoreBatch keeps a transaction's replaced nodes well below 8,192 per
// index (about 4 per insert at the depth of a million-entry index).
const restoreBatch = 512

func (t *restoreTxn) insert(table string, obj any) error {
	if err := t.Insert(table, obj); err != nil {
		return err
	}
	if t.written++; t.written%restoreBatch == 0 {
		t.Commit()
		t.Txn = t.db.Txn(true)
	}
	return nil
}

func restoreRecords(txn *restoreTxn, dec *codec.Decoder, allocs *allocRestorer) error {
	for {
		var tag recordType
		if err := dec.Decode(&tag); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading record tag: %w", err)
		}
		if tag == tagAllocShared || tag == tagAllocRef {
			if err := allocs.decode(tag, dec); err != nil {
				return fmt.Errorf("reading alloc record: %w", err)
			}
			continue
		}
		t, ok := snapshotTableByTag(tag)
		if !ok {
			return fmt.Errorf("unknown snapshot record type %d", tag)
		}
		obj := t.new()
		if err := dec.Decode(obj); err != nil {
			return fmt.Errorf("reading %s record: %w", t.table, err)
		}
		if err := txn.insert(t.table, obj); err != nil {
			return fmt.Errorf("restoring %s record: %w", t.table, err)
		}
	}
}
