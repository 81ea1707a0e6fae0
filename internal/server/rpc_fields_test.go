package server

import (
	"flag"
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/wirefields"
)

var updateRPCFields = flag.Bool("update", false, "record appended RPC fields in testdata/rpc_fields.golden")

// RPCs encode structs as arrays of their fields
// (structs.StructArrayHandle), so the position of each field of every
// struct a call or its reply can hold is part of the RPC format: clients
// and servers of two versions call each other during a rolling upgrade.
// Run with -update after appending fields or adding
// endpoints; it refuses anything else.
func TestRPCFields_OnlyEverAppended(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	var roots []reflect.Type
	for _, m := range s.rpcMethods() {
		roots = append(roots, m.args, m.reply)
	}
	wirefields.Check(t, "testdata/rpc_fields.golden", "RPCs", wirefields.Structs(roots...), *updateRPCFields)
}

// A call encoded with field names, as servers and clients before struct
// arrays sent them, is served, and its reply decodes.
func TestRPCEndpoints_CallsWithFieldNamesStillServe(t *testing.T) {
	s := testServer(t, "")
	defer s.Shutdown()
	rc := dialRPC(t, s)
	rc.handle = structs.MsgpackHandle

	var reg structs.JobRegisterResponse
	if err := rc.call("Job.Register", &structs.JobRegisterArgs{Job: testJob("web"),
		WriteRequest: structs.WriteRequest{Namespace: structs.DefaultNamespace}}, &reg); err != nil || reg.EvalID == "" {
		t.Fatalf("Job.Register with field names: %+v, %v", reg, err)
	}
	var got structs.SingleJobResponse
	if err := rc.call("Job.GetJob", &structs.JobSpecificRequest{JobID: "web",
		QueryOptions: structs.QueryOptions{Namespace: structs.DefaultNamespace}}, &got); err != nil || got.Job == nil || got.Job.ID != "web" {
		t.Fatalf("Job.GetJob with field names: %+v, %v", got.Job, err)
	}
}
