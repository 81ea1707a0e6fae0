package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestWriteFuzzSeeds regenerates the binary seed corpora (msgpack RPC
// calls, snapshots) under testdata/fuzz when DROVER_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("DROVER_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set DROVER_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz seeds")
	}
	write := func(target, name string, b []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(b)))
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	node := &structs.Node{ID: "n1", Name: "x", Datacenter: "dc1", Attributes: map[string]string{"kernel.name": "linux"},
		Drivers: map[string]*structs.DriverInfo{"exec": {Detected: true}}}
	write("FuzzRPCRequest", "register", rpcRequest("Node.Register", &structs.NodeRegisterArgs{Node: node}))
	write("FuzzRPCRequest", "heartbeat", rpcRequest("Node.UpdateStatus", &structs.NodeHeartbeatArgs{NodeID: "n1", SecretID: "s", Status: "ready"}))
	write("FuzzRPCRequest", "allocs", rpcRequest("Node.GetClientAllocs", &structs.NodeAllocsArgs{NodeID: "n1", QueryOptions: structs.QueryOptions{MinQueryIndex: 5}}))
	write("FuzzRPCRequest", "update", rpcRequest("Node.UpdateAlloc", &structs.AllocClientUpdateArgs{NodeID: "n1",
		Allocs: []*structs.Allocation{{ID: "a", ClientStatus: "running", TaskStates: map[string]*structs.TaskState{"t": {State: "running"}}}}}))
	write("FuzzRPCRequest", "two_calls", append(rpcRequest("Node.UpdateStatus", &structs.NodeHeartbeatArgs{}), rpcRequest("Nope.X", &structs.NodeHeartbeatArgs{})...))

	s := testServer(t, "")
	defer s.Shutdown()
	if _, err := JobRegister.Call(context.Background(), s, &structs.JobRegisterArgs{Job: testJob("web")}); err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if err := s.WriteSnapshot(&good); err != nil {
		t.Fatal(err)
	}
	write("FuzzSnapshotRestore", "good", good.Bytes())
	write("FuzzSnapshotRestore", "garbage_state", operatorSnapshot(t, bytes.Repeat([]byte{0xc1}, 64)))
	write("FuzzSnapshotRestore", "no_id", operatorSnapshot(t, []byte{0x02, 0x81, 0xa2, 'I', 'D', 0xc0}))
}
