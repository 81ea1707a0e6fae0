package state

import (
	"flag"
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/testutil/wirefields"
)

var updateSnapshotFields = flag.Bool("update-snapshot-fields", false, "record appended snapshot fields in testdata/snapshot_fields.golden")

// Snapshots encode structs as arrays of their fields (snapshotHandle), so
// the position of each field of every struct a snapshot record can hold is
// part of the snapshot format: a server must restore the snapshots an
// older one wrote, and an older one those a newer one writes. Run with
// -update-snapshot-fields after appending fields or adding tables; it
// refuses anything else.
func TestSnapshotFields_OnlyEverAppended(t *testing.T) {
	var roots []reflect.Type
	for _, st := range snapshotTables {
		roots = append(roots, reflect.TypeOf(st.new()))
	}
	roots = append(roots, reflect.TypeFor[allocRecord](), reflect.TypeFor[sharedRecord]())
	wirefields.Check(t, "testdata/snapshot_fields.golden", "snapshots", wirefields.Structs(roots...), *updateSnapshotFields)
}
