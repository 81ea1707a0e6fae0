package server

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

var endpointMethod = regexp.MustCompile(`(?m)^func \(\w+ \*(\w+)Endpoint\) ([A-Z]\w*)\(\w+ context\.Context, \w+ \*structs\.\w+\) \(\*structs\.\w+, error\)`)

// TestMethods_EveryEndpointRegistered: an endpoint method (exported, of
// the RPC shape) that is not in the method table could only be called
// by going around it, unchecked and unforwarded; each must be registered
// under its family and name.
func TestMethods_EveryEndpointRegistered(t *testing.T) {
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
		for _, m := range endpointMethod.FindAllStringSubmatch(string(src), -1) {
			seen++
			if name := m[1] + "." + m[2]; registry[name] == nil {
				t.Errorf("%s: endpoint %s is not registered in methods.go", e.Name(), name)
			}
		}
	}
	if seen < 90 {
		t.Fatalf("found only %d endpoint methods; the scan is broken", seen)
	}
	if len(registry) != seen {
		t.Errorf("%d methods registered, %d endpoint methods found", len(registry), seen)
	}
}

// TestMethods_KindMatchesArguments: a method's declared kind is what its
// argument type says (QueryOptions reads, WriteRequest writes), so the
// table and a request's AllowStaleRead agree; and every method has an
// access rule (one without fails closed, but it is a mistake).
func TestMethods_KindMatchesArguments(t *testing.T) {
	for _, name := range MethodNames() {
		m := registry[name]
		spec := m.describe()
		args := m.rpc(nil).newArgs().(structs.RPCInfo)
		if (spec.kind == read) != args.IsRead() {
			t.Errorf("%s: registered as kind %d, its arguments say IsRead=%v", name, spec.kind, args.IsRead())
		}
		a := spec.access
		if a.check == nil && !a.self && !a.serverOnly {
			t.Errorf("%s: no access rule", name)
		}
		if _, ok := args.(structs.ObjectRequest); a.object && !ok {
			t.Errorf("%s: its rule reads the object the request names, but %T names none (structs.ObjectRequest)", name, args)
		}
		if _, ok := args.(structs.JobRequest); a.jobBody && !ok {
			t.Errorf("%s: its rule reads the request's job, but %T carries none (structs.JobRequest)", name, args)
		}
		if !strings.Contains(name, ".") || spec.name != name {
			t.Errorf("%s: registered under %q", name, spec.name)
		}
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
