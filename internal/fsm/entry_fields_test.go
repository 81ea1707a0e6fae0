package fsm

import (
	"bytes"
	"flag"
	"reflect"
	"testing"

	"github.com/hashicorp/go-msgpack/v2/codec"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
	"github.com/drover-project/drover/internal/testutil/wirefields"
)

var updateFields = flag.Bool("update", false, "record appended entry fields in testdata/entry_fields.golden")

// Raft entries encode structs as arrays of their fields
// (structs.StructArrayHandle), so the position of each field of every
// struct an entry can hold is part of the log's format: a server must
// still apply the entries an older one wrote, and an older one the
// entries a newer one writes. Run with -update after appending fields or
// adding entry types; it refuses anything else.
func TestEntryFields_OnlyEverAppended(t *testing.T) {
	f := newTestFSM(t)
	var roots []reflect.Type
	for _, a := range f.appliers {
		roots = append(roots, a.payload)
	}
	wirefields.Check(t, "testdata/entry_fields.golden", "raft entries", wirefields.Structs(roots...), *updateFields)
}

// Entries written before structs traveled as arrays (their fields keyed
// by name) apply as they did: a server replays its log's tail after an
// upgrade, and every replica must reach the same state whichever form
// each entry has.
func TestFSM_EntriesWithFieldNamesApplyAsArraysDo(t *testing.T) {
	entry := &structs.JobRegisterRequest{Job: mock.Job("web")}
	asArrays, _ := structs.Encode(structs.JobRegisterRequestType, entry)
	withNames, _ := encodeWithFieldNames(structs.JobRegisterRequestType, entry)
	if len(withNames) <= len(asArrays) {
		t.Fatalf("an entry with field names has %d bytes, as arrays %d: Encode no longer writes arrays", len(withNames), len(asArrays))
	}

	arrays := newTestFSM(t)
	populate(t, arrays)

	encodeEntry = encodeWithFieldNames
	t.Cleanup(func() { encodeEntry = structs.Encode })
	names := newTestFSM(t)
	populate(t, names)
	assertSameState(t, arrays.State(), names.State())
}

func encodeWithFieldNames(mt structs.MessageType, msg any) ([]byte, error) {
	buf := bytes.NewBuffer([]byte{byte(mt)})
	err := codec.NewEncoder(buf, structs.MsgpackHandle).Encode(msg)
	return buf.Bytes(), err
}
