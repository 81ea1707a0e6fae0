package agent

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// A check's initial_status is its status until its first result, through
// a real client: the checked server holds every request until the test
// lets go, so no result arrives. With initial_status = "passing" the
// registration is passing, the checks endpoint says success and the
// deployment counts the alloc healthy (health_check = "checks"); with
// "critical" the registration is critical. Once the server answers, the
// results replace the initial status.
func TestCheckInitialStatus_ThroughTheClient(t *testing.T) {
	for _, initial := range []string{"passing", "critical"} {
		t.Run(initial, func(t *testing.T) {
			a, c := clientTestAgent(t)
			release := make(chan struct{})
			var seen atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen.Add(1)
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			var once atomic.Bool
			letGo := func() {
				if once.CompareAndSwap(false, true) {
					close(release)
				}
			}
			defer letGo()
			port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
			id := "initial-" + initial
			job := shellJob(id, `sleep 1000`)
			tg := job.TaskGroups[0]
			tg.Services = []*api.Service{{Name: id, Provider: "nomad", PortLabel: port,
				Checks: []api.ServiceCheck{{Name: "held", Type: "http", Path: "/", InitialStatus: initial,
					Interval: time.Second, Timeout: 2 * time.Minute}}}}
			tg.Update = &api.UpdateStrategy{HealthCheck: pointer("checks"), MinHealthyTime: pointer(time.Second),
				HealthyDeadline: pointer(5 * time.Minute), ProgressDeadline: pointer(10 * time.Minute)}
			alloc := runJob(t, c, job)

			wantHealth, wantCheck := "passing", "success"
			if initial == "critical" {
				wantHealth, wantCheck = "critical", "failure"
			}
			eventually(t, 20*time.Second, func() string {
				if seen.Load() == 0 {
					return "the check has not sent its first request"
				}
				if h := servedHealth(t, a, id); len(h) != 1 || h[0] != wantHealth {
					return fmt.Sprintf("registration health %v, want %s", h, wantHealth)
				}
				got, err := c.Allocations().Checks(alloc.ID, nil)
				if r := got["group/"+id+"/held"]; err != nil || r.Status != wantCheck || r.Timestamp != 0 {
					return fmt.Sprintf("checks endpoint: %+v %v", got, err)
				}
				return ""
			})
			if initial == "passing" {
				eventually(t, 20*time.Second, func() string {
					info, _, err := c.Allocations().Info(alloc.ID, nil)
					if err != nil || info.DeploymentStatus == nil || info.DeploymentStatus.Healthy == nil || !*info.DeploymentStatus.Healthy {
						return fmt.Sprintf("deployment status %+v %v", info.DeploymentStatus, err)
					}
					return ""
				})
				if got, _ := c.Allocations().Checks(alloc.ID, nil); got["group/"+id+"/held"].Timestamp != 0 {
					t.Fatalf("a result arrived before the server answered: %+v", got)
				}
			}
			letGo()
			eventually(t, 20*time.Second, func() string {
				got, err := c.Allocations().Checks(alloc.ID, nil)
				if r := got["group/"+id+"/held"]; err != nil || r.Status != "success" || r.Timestamp == 0 {
					return fmt.Sprintf("after the server answered: %+v %v", got, err)
				}
				if h := servedHealth(t, a, id); len(h) != 1 || h[0] != "passing" {
					return fmt.Sprintf("registration health %v after the server answered", h)
				}
				return ""
			})
		})
	}
}
