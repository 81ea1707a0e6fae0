package state

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

var writeV1Snapshot = flag.Bool("write-v1-snapshot", false, "rewrite testdata/snapshot-v1.* (the snapshot format whose structs are maps keyed by field names)")

// Snapshot files of the first format, structs as maps keyed by their field
// names: testdata/snapshot-v1.msgpack was written by the code of that
// format from populateShared's store, and testdata/snapshot-v1.json is
// that store's tables as JSON. A server restarting after an upgrade
// restores the snapshot an older version wrote, so such a file must still
// restore to the same state.
const (
	v1Snapshot = "testdata/snapshot-v1.msgpack"
	v1Tables   = "testdata/snapshot-v1.json"
)

// tablesJSON is every table's rows (the snapshot's and the derived
// node_usage), as indented JSON.
func tablesJSON(t *testing.T, r reader) []byte {
	t.Helper()
	tables := dumpTables(t, r)
	txn := r.txn()
	it, err := txn.Get(TableNodeUsage, "id")
	must(t, err)
	for obj := it.Next(); obj != nil; obj = it.Next() {
		u := obj.(*structs.NodeUsage)
		// JSON has no struct map keys: ports as "ip:port count", sorted.
		ports := []string{}
		for p, n := range u.Ports {
			ports = append(ports, fmt.Sprintf("%s:%d %d", p.IP, p.Port, n))
		}
		slices.Sort(ports)
		allocs := []string{}
		for _, a := range u.Allocs {
			allocs = append(allocs, a.ID)
		}
		tables[TableNodeUsage] = append(tables[TableNodeUsage], map[string]any{
			"NodeID": u.NodeID, "Allocs": allocs, "Used": u.Used, "MemoryMaxMB": u.MemoryMaxMB, "Cores": u.Cores, "Ports": ports,
		})
	}
	out, err := json.MarshalIndent(tables, "", " ")
	must(t, err)
	return append(out, '\n')
}

func TestRestore_V1SnapshotFile(t *testing.T) {
	if *writeV1Snapshot {
		src := newStore(t)
		populateShared(t, src)
		var buf bytes.Buffer
		must(t, src.Snapshot().persist(&buf, structs.MsgpackHandle))
		must(t, os.WriteFile(v1Snapshot, buf.Bytes(), 0o644))
		must(t, os.WriteFile(v1Tables, tablesJSON(t, src.reader), 0o644))
	}
	data, err := os.ReadFile(v1Snapshot)
	must(t, err)
	want, err := os.ReadFile(v1Tables)
	must(t, err)

	old := newStore(t)
	must(t, old.Restore(bytes.NewReader(data)))
	if got := tablesJSON(t, old.reader); !bytes.Equal(got, want) {
		t.Fatalf("%s restored to tables other than %s:\n%s", v1Snapshot, v1Tables, got)
	}

	// Persisted again (in the current format) and restored, it is the
	// same store, sharing included.
	var again bytes.Buffer
	must(t, old.Snapshot().Persist(&again))
	cur := newStore(t)
	must(t, cur.Restore(&again))
	if got := tablesJSON(t, cur.reader); !bytes.Equal(got, want) {
		t.Fatalf("%s persisted and restored again gave other tables:\n%s", v1Snapshot, got)
	}
	wantRows, gotRows := dumpTables(t, old.reader), dumpTables(t, cur.reader)
	if !reflect.DeepEqual(gotRows, wantRows) {
		t.Fatal("restoring the current format and the first one gave different stores")
	}
	for _, s := range []*StateStore{old, cur} {
		a1, _ := s.AllocByID(nil, "a1")
		b0, _ := s.AllocByID(nil, "b0")
		live, _ := s.JobByID(nil, "default", "web")
		if b0.Job != live || a1.AllocatedResources == nil || b0.Metrics == nil {
			t.Error("restored allocs do not point at their stored job")
		}
	}
}
