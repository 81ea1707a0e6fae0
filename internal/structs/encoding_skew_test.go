package structs

import (
	"testing"
)

// The two versions of one struct in a raft entry, before and after a
// field was appended.
type entryV1 struct {
	ID    string
	Count int
}

type entryV2 struct {
	ID    string
	Count int
	Added *entryV1
}

// Entries encode structs as arrays (StructArrayHandle). An entry written before
// a field was appended decodes with that field zero, and one written with
// a field the reader does not know yet decodes without it: what lets
// servers of two versions share a log in a rolling upgrade.
func TestEncode_StructArraysDecodeAcrossAppendedFields(t *testing.T) {
	old, err := Encode(0, &entryV1{ID: "a", Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := old[1] & 0xf0; got != 0x90 { // msgpack fixarray
		t.Fatalf("struct encoded with leading byte %#x, want an array", old[1])
	}
	var newer entryV2
	if err := Decode(old[1:], &newer); err != nil || newer.ID != "a" || newer.Count != 2 || newer.Added != nil {
		t.Fatalf("old entry decoded by a newer server as %+v (%v)", newer, err)
	}

	fresh, err := Encode(0, &entryV2{ID: "b", Count: 3, Added: &entryV1{ID: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	var older entryV1
	if err := Decode(fresh[1:], &older); err != nil || older.ID != "b" || older.Count != 3 {
		t.Fatalf("new entry decoded by an older server as %+v (%v)", older, err)
	}
}
