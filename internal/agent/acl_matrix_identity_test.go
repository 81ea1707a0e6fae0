package agent

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// skewedClock is the real clock moved forward by a settable offset: the
// server's timers keep running while its "now" jumps.
type skewedClock struct {
	clock.Real
	mu  sync.Mutex
	off time.Duration
}

func (c *skewedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }

func (c *skewedClock) skip(d time.Duration) { c.mu.Lock(); c.off += d; c.mu.Unlock() }

// The token x endpoint matrix again, with workload identities as the
// tokens: the default identity of a task of job "wi" (default
// namespace), of job "api" (prod), of a stopped allocation, a named
// identity (audience vault.io) of job "wi", and (last, once the server's
// clock has passed it) an expired one of job "wi". A workload identity is a
// credential for its own job's variables only (Nomad's implicit policy),
// so every endpoint of the matrix but the public ones answers 403, and
// the variables endpoints answer exactly per path.
func TestACLMatrix_WorkloadIdentities(t *testing.T) {
	skew := &skewedClock{}
	a, root, _ := matrixAgent(t, WithServerClock(skew))
	f := matrixFixtures(t, a, root)
	node, err := a.Server().State().NodeByID(nil, f.nodeID)
	if err != nil || node == nil {
		t.Fatalf("node: %v", err)
	}
	place := func(id string, mutate func(*api.Job)) string {
		t.Helper()
		job := testAPIJob(id)
		job.TaskGroups[0].Count = pointer(1)
		if mutate != nil {
			mutate(job)
		}
		if _, _, err := root.Jobs().Register(job, nil); err != nil {
			t.Fatal(err)
		}
		var allocs []*api.AllocationListStub
		testutil.WaitFor(t, 15*time.Second, "job "+id+" placed", func() (bool, string) {
			allocs, _, _ = root.Jobs().Allocations(id, false, nil)
			return len(allocs) > 0, ""
		})
		return allocs[0].ID
	}
	sign := func(allocID string, identity string) string {
		t.Helper()
		req := &structs.WorkloadIdentitySignRequest{NodeID: node.ID, SecretID: node.SecretID, AllocID: allocID}
		if identity == "" {
			req.Tasks = []string{"server"}
		} else {
			req.Identities = []structs.WorkloadIdentityRequest{{Task: "server", Identity: identity}}
		}
		reply, err := server.WorkloadIdentitySign.Call(context.Background(), a.Server(), req)
		if err != nil {
			t.Fatalf("sign %s %s: %v", allocID, identity, err)
		}
		if identity == "" {
			return reply.Tokens["server"]
		}
		return reply.Signed[0].JWT
	}
	wiAlloc := place("wi", func(j *api.Job) {
		j.TaskGroups[0].Tasks[0].Identity = &api.WorkloadIdentity{TTL: time.Minute}
		j.TaskGroups[0].Tasks[0].Identities = []*api.WorkloadIdentity{{Name: "vault_default", Audience: []string{"vault.io"}, TTL: time.Hour}}
	})
	goneAlloc := place("gone", nil)
	tokens := map[string]string{
		"wi-own":      sign(wiAlloc, ""),
		"wi-other-ns": sign(f.apiAlloc, ""),
		"wi-named":    sign(wiAlloc, "vault_default"),
		"wi-stopped":  sign(goneAlloc, ""),
	}
	if _, _, err := root.Jobs().Deregister("gone", true, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 15*time.Second, "job gone's allocation stopped", func() (bool, string) {
		al, _, err := root.Allocations().Info(goneAlloc, nil)
		return err == nil && al.DesiredStatus == "stop", ""
	})
	for _, path := range []string{"nomad/jobs/wi", "nomad/jobs/wi/web/server", "nomad/jobs/web", "nomad/jobs/gone", "app/config"} {
		if _, _, err := root.Variables().Create(&api.Variable{Path: path, Items: api.VariableItems{"k": "v"}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := root.Variables().Create(&api.Variable{Namespace: "prod", Path: "nomad/jobs/api", Items: api.VariableItems{"k": "v"}},
		&api.WriteOptions{Namespace: "prod"}); err != nil {
		t.Fatal(err)
	}

	// Every matrix endpoint: only the public ones answer a workload
	// identity with anything but 403, and the variable listing answers a
	// live one (filtered to its own paths, checked below).
	cells := 0
	for _, tc := range matrixCases(f) {
		for name, secret := range tokens {
			public := slicesContains(tc.allowed, "*") || (tc.path == "/v1/vars" && (name == "wi-own" || name == "wi-other-ns"))
			cells++
			code, msg := matrixCall(t, a, secret, tc)
			switch {
			case public && code == 403:
				t.Errorf("%s %s with %s: 403 (%s) on a public endpoint", tc.method, tc.path, name, msg)
			case !public && code != 403:
				t.Errorf("%s %s with %s: %d (%s), want 403", tc.method, tc.path, name, code, msg)
			}
		}
	}

	// Variables: the exact status of each path, per identity.
	type varCell struct {
		method, path string
		want         map[string]int // by token; missing: 403
	}
	ok := func(names ...string) map[string]int {
		m := map[string]int{}
		for _, n := range names {
			m[n] = 200
		}
		return m
	}
	varCells := []varCell{
		{"GET", "/v1/var/nomad/jobs/wi", ok("wi-own")},
		{"GET", "/v1/var/nomad/jobs/wi/web/server", ok("wi-own")},
		{"GET", "/v1/var/nomad/jobs/web", nil},
		{"GET", "/v1/var/nomad/jobs/gone", nil},
		{"GET", "/v1/var/app/config", nil},
		{"GET", "/v1/var/nomad/jobs/api?namespace=prod", ok("wi-other-ns")},
		{"GET", "/v1/var/nomad/jobs/wi?namespace=prod", map[string]int{"wi-other-ns": 403}},
		{"GET", "/v1/var/nomad/jobs/nope-wi", nil},
		{"GET", "/v1/var/nomad/jobs/wi/missing", map[string]int{"wi-own": 404}},
		{"GET", "/v1/vars?prefix=nomad/jobs", ok("wi-own", "wi-other-ns")},
		{"GET", "/v1/vars?prefix=nomad/jobs&namespace=prod", ok("wi-own", "wi-other-ns")},
		{"PUT", "/v1/var/nomad/jobs/wi", nil},
		{"DELETE", "/v1/var/nomad/jobs/wi", nil},
	}
	for _, vc := range varCells {
		var body any
		if vc.method == "PUT" {
			body = map[string]any{"Items": map[string]string{"k": "x"}}
		}
		for name, secret := range tokens {
			cells++
			want, listed := vc.want[name]
			if !listed {
				want = 403
			}
			code, msg := matrixCall(t, a, secret, matrixCase{method: vc.method, path: vc.path, body: body})
			if code != want {
				t.Errorf("%s %s with %s: %d (%s), want %d", vc.method, vc.path, name, code, msg, want)
			}
		}
	}
	// What a listing shows: its own job's variables only.
	for _, l := range []struct{ token, ns, want string }{
		{"wi-own", "default", "nomad/jobs/wi,nomad/jobs/wi/web/server"},
		{"wi-own", "prod", ""},
		{"wi-other-ns", "prod", "nomad/jobs/api"},
		{"wi-other-ns", "default", ""},
	} {
		list, _, err := matrixClient(t, a, tokens[l.token]).Variables().PrefixList("", &api.QueryOptions{Namespace: l.ns})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, v := range list {
			paths = append(paths, v.Path)
		}
		sort.Strings(paths)
		if got := strings.Join(paths, ","); got != l.want {
			t.Errorf("%s lists %q in %s, want %q", l.token, got, l.ns, l.want)
		}
	}

	// Expired: the default identity of job "wi" signed with its 1 min
	// TTL, then the server's clock moved past it and the leeway. Refused
	// everywhere, saying why, where the same token was good before.
	expiring := sign(wiAlloc, "default")
	if code, msg := matrixCall(t, a, expiring, matrixCase{method: "GET", path: "/v1/var/nomad/jobs/wi"}); code != 200 {
		t.Fatalf("the identity with a TTL before expiry: %d %s", code, msg)
	}
	skew.skip(3 * time.Minute)
	for _, tc := range matrixCases(f) {
		cells++
		code, msg := matrixCall(t, a, expiring, tc)
		if public := slicesContains(tc.allowed, "*"); public == (code == 403) {
			t.Errorf("%s %s with an expired identity: %d (%s)", tc.method, tc.path, code, msg)
		}
	}
	for _, path := range []string{"/v1/var/nomad/jobs/wi", "/v1/vars"} {
		cells++
		if code, msg := matrixCall(t, a, expiring, matrixCase{method: "GET", path: path}); code != 403 || !strings.Contains(msg, "expired") {
			t.Errorf("GET %s with an expired identity: %d %s, want 403 saying expired", path, code, msg)
		}
	}
	t.Logf("workload identity matrix: %d cells", cells)
}
