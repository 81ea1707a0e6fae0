package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// httpServiceJob runs n replicas of a real HTTP server on a dynamic port
// "http", advertised in the native catalog as service "web".
func httpServiceJob(id string, n int) *api.Job {
	task := shellTask("raw_exec", `cd "$NOMAD_TASK_DIR" && echo "hello from $NOMAD_ALLOC_ID" > index.html && exec python3 -m http.server "$NOMAD_PORT_http" --bind "$NOMAD_IP_http"`)
	job := serviceJob(id, n, task)
	tg := job.TaskGroups[0]
	tg.Networks = []*api.NetworkResource{{DynamicPorts: []api.Port{{Label: "http"}}}}
	tg.Services = []*api.Service{{Name: "web", PortLabel: "http", Provider: "nomad", Tags: []string{"v1"}}}
	return job
}

// webPorts maps the alloc IDs of the "web" registrations to their ports.
func webRegistrations(t *testing.T, c *api.Client, q *api.QueryOptions) ([]*api.ServiceRegistration, *api.QueryMeta) {
	t.Helper()
	regs, meta, err := c.Services().Get("web", q)
	if err != nil {
		t.Fatalf("GET /v1/service/web: %v", err)
	}
	return regs, meta
}

func allocPort(a *api.Allocation, label string) int {
	for _, p := range a.AllocatedResources.Shared.Ports {
		if p.Label == label {
			return p.Value
		}
	}
	for _, n := range a.AllocatedResources.Shared.Networks {
		for _, p := range n.DynamicPorts {
			if p.Label == label {
				return p.Value
			}
		}
	}
	return 0
}

func TestNativeServicesRegisterAndLeaveWithTheirAllocs(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 (the test's HTTP server) not found")
	}
	_, c := startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := c.EventStream().Stream(ctx, map[api.Topic][]string{"Service": {"web"}}, 0, nil)
	if err != nil {
		t.Fatalf("event stream: %v", err)
	}
	register(t, c, httpServiceJob("web", 2))
	allocs := runningAllocs(t, c, "web", 2)
	want := map[string]int{}
	for _, a := range allocs {
		want[a.ID] = allocPort(a, "http")
	}

	// Both replicas are listed with their ports, and answer there.
	var regs []*api.ServiceRegistration
	waitFor(t, 20*time.Second, "two web registrations", func() (bool, string) {
		regs, _ = webRegistrations(t, c, nil)
		return len(regs) == 2, fmt.Sprintf("%d registrations", len(regs))
	})
	for _, r := range regs {
		if r.Port == 0 || want[r.AllocID] != r.Port || r.JobID != "web" || r.Namespace != "default" || r.Datacenter != "dc1" || r.NodeID == "" {
			t.Fatalf("registration %+v does not match the alloc's port %d", r, want[r.AllocID])
		}
		url := fmt.Sprintf("http://%s:%d/", r.Address, r.Port)
		waitFor(t, 20*time.Second, "an answer at "+url, func() (bool, string) {
			resp, err := http.Get(url)
			if err != nil {
				return false, err.Error()
			}
			resp.Body.Close()
			return resp.StatusCode == 200, resp.Status
		})
	}
	list, _, err := c.Services().List(nil)
	if err != nil || len(list) != 1 || list[0].Namespace != "default" || len(list[0].Services) != 1 ||
		list[0].Services[0].ServiceName != "web" || strings.Join(list[0].Services[0].Tags, ",") != "v1" {
		t.Fatalf("GET /v1/services: %v %+v", err, list)
	}
	byJob, _, err := c.Jobs().Services("web", nil)
	if err != nil || len(byJob) != 2 {
		t.Fatalf("GET /v1/job/web/services: %v, %d", err, len(byJob))
	}
	byAlloc, _, err := c.Allocations().Services(allocs[0].ID, nil)
	if err != nil || len(byAlloc) != 1 || byAlloc[0].AllocID != allocs[0].ID {
		t.Fatalf("GET /v1/allocation/:id/services: %v, %+v", err, byAlloc)
	}
	chosen, _ := webRegistrations(t, c, &api.QueryOptions{Params: map[string]string{"choose": "1|client-a"}})
	again, _ := webRegistrations(t, c, &api.QueryOptions{Params: map[string]string{"choose": "1|client-a"}})
	if len(chosen) != 1 || len(again) != 1 || chosen[0].ID != again[0].ID {
		t.Fatalf("choose=1|client-a: %v then %v", ids(chosen), ids(again))
	}

	// An operator may delete a registration by name and ID; a wrong name is
	// a 404.
	if _, err := c.Services().Delete("other", regs[1].ID, nil); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("delete under another name: %v, want a 404", err)
	}
	if _, err := c.Services().Delete("web", regs[1].ID, nil); err != nil {
		t.Fatalf("DELETE /v1/service/web/:id: %v", err)
	}
	if left, _ := webRegistrations(t, c, nil); len(left) != 1 || left[0].ID == regs[1].ID {
		t.Fatalf("after delete: %v", ids(left))
	}

	// A blocking query wakes when a replica stops: its registration goes.
	_, meta := webRegistrations(t, c, nil)
	stopped := allocs[0].ID
	if _, err := c.Allocations().Stop(allocs[0], nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the stopped alloc's registration gone", func() (bool, string) {
		regs, m := webRegistrations(t, c, &api.QueryOptions{WaitIndex: meta.LastIndex, WaitTime: 5 * time.Second})
		meta = m
		for _, r := range regs {
			if r.AllocID == stopped {
				return false, "still listed: " + strings.Join(ids(regs), ",")
			}
		}
		return true, ""
	})

	// The Service topic saw both registrations and the deregistrations.
	seen := map[string]int{}
	for seen["ServiceRegistration"] < 2 || seen["ServiceDeregistration"] < 2 {
		select {
		case batch := <-events:
			if batch == nil || batch.Err != nil {
				t.Fatalf("event stream ended: %+v", batch)
			}
			for _, ev := range batch.Events {
				reg, err := ev.Service()
				if ev.Topic != "Service" || err != nil || reg == nil || reg.ServiceName != "web" {
					t.Fatalf("service event %+v: %v", ev, err)
				}
				seen[ev.Type]++
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("Service events seen: %v, want 2 registrations and 2 deregistrations", seen)
		}
	}

	// Stopping the job empties the catalog.
	if _, _, err := c.Jobs().Deregister("web", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "no web registrations after the job stopped", func() (bool, string) {
		regs, _ := webRegistrations(t, c, nil)
		return len(regs) == 0, strings.Join(ids(regs), ",")
	})
}

func ids(regs []*api.ServiceRegistration) []string {
	var out []string
	for _, r := range regs {
		out = append(out, r.AllocID)
	}
	sort.Strings(out)
	return out
}
