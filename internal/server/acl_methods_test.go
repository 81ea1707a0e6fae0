package server

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

var forwardCall = regexp.MustCompile(`forward\(ctx, (?:"([A-Za-z]+\.[A-Za-z]+)"|structs\.(RPC[A-Za-z]+))`)

// rpcNames are the method-name constants endpoints pass to forward.
var rpcNames = map[string]string{
	"RPCServiceRegistrationUpsert":     structs.RPCServiceRegistrationUpsert,
	"RPCServiceRegistrationDeleteByID": structs.RPCServiceRegistrationDeleteByID,
	"RPCWorkloadIdentitySign":          structs.RPCWorkloadIdentitySign,
}

// TestMethodRules_EveryForwardedMethod: every endpoint calls forward with
// its method name; each name needs a rule (without one it needs a
// management token).
func TestMethodRules_EveryForwardedMethod(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := os.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range forwardCall.FindAllStringSubmatch(string(src), -1) {
			seen++
			name := m[1]
			if m[2] != "" {
				if name = rpcNames[m[2]]; name == "" {
					t.Errorf("%s: forward with structs.%s: add it to rpcNames", e.Name(), m[2])
					continue
				}
			}
			if _, ok := methodRules[name]; !ok {
				t.Errorf("%s: endpoint %s has no entry in methodRules", e.Name(), name)
			}
		}
	}
	if seen < 40 {
		t.Fatalf("found only %d forward calls; the scan is broken", seen)
	}
}

// TestACL_RPCPortChecksTokens: the endpoints answer on the RPC port, so
// they check the caller's token there too.
func TestACL_RPCPortChecksTokens(t *testing.T) {
	s, _ := aclServer(t, "")
	root := bootstrap(t, s)
	rpc := dialRPC(t, s)
	q := func(token string) structs.QueryOptions {
		return structs.QueryOptions{Namespace: "*", AuthToken: token}
	}
	for _, token := range []string{"", "00000000-0000-0000-0000-00000000dead"} {
		var jobs structs.JobListResponse
		if err := rpc.call("Job.List", &structs.JobListRequest{QueryOptions: structs.QueryOptions{Namespace: "default", AuthToken: token}}, &jobs); err == nil || !strings.Contains(err.Error(), "Permission denied") {
			t.Errorf("Job.List with %q: %v", token, err)
		}
		var reg structs.JobRegisterResponse
		if err := rpc.call("Job.Register", &structs.JobRegisterArgs{Job: testJob("x"), WriteRequest: structs.WriteRequest{AuthToken: token}}, &reg); err == nil || !strings.Contains(err.Error(), "Permission denied") {
			t.Errorf("Job.Register with %q: %v", token, err)
		}
		var nodes structs.NodeListResponse
		if err := rpc.call("Node.List", &structs.NodeListRequest{QueryOptions: q(token)}, &nodes); err == nil || !strings.Contains(err.Error(), "Permission denied") {
			t.Errorf("Node.List with %q: %v", token, err)
		}
		var gc structs.GenericResponse
		if err := rpc.call("System.GarbageCollect", &structs.GenericWriteArgs{WriteRequest: structs.WriteRequest{AuthToken: token}}, &gc); err == nil || !strings.Contains(err.Error(), "Permission denied") {
			t.Errorf("System.GarbageCollect with %q: %v", token, err)
		}
	}
	var reg structs.JobRegisterResponse
	if err := rpc.call("Job.Register", &structs.JobRegisterArgs{Job: testJob("x"), WriteRequest: structs.WriteRequest{Namespace: "default", AuthToken: root.SecretID}}, &reg); err != nil {
		t.Fatalf("Job.Register with management: %v", err)
	}
	var jobs structs.JobListResponse
	if err := rpc.call("Job.List", &structs.JobListRequest{QueryOptions: q(root.SecretID)}, &jobs); err != nil || len(jobs.Jobs) != 1 {
		t.Fatalf("Job.List with management: %d jobs, %v", len(jobs.Jobs), err)
	}
}
