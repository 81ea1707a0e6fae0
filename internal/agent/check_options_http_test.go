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

// A check's header block, method and body reach the service through a
// real client: the server answers 200 only to a request carrying them,
// and the check passes (after success_before_passing results in a row);
// the service's meta, tagged addresses and check options are kept in the
// stored job.
func TestCheckHeader_ThroughTheClient(t *testing.T) {
	_, c := clientTestAgent(t)
	var good, seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		buf := make([]byte, 16)
		n, _ := r.Body.Read(buf)
		if r.Method != "POST" || r.Header.Get("X-Token") != "s3cret" || r.Host != "svc.test" || string(buf[:n]) != "ping" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		good.Add(1)
	}))
	defer srv.Close()
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	job := shellJob("hdr", `sleep 100`)
	tg := job.TaskGroups[0]
	tg.Services = []*api.Service{{
		Name: "svc", Provider: "nomad", PortLabel: port,
		Meta: map[string]string{"team": "a"}, TaggedAddresses: map[string]string{"lan": "10.0.0.1"},
		Checks: []api.ServiceCheck{{
			Name: "hdr", Type: "http", Path: "/health", Method: "POST", Body: "ping",
			Header:   map[string][]string{"X-Token": {"s3cret"}, "Host": {"svc.test"}},
			Interval: time.Second, Timeout: time.Second, SuccessBeforePassing: 2,
		}},
	}}
	tg.Update = &api.UpdateStrategy{HealthCheck: pointer("task_states")}
	alloc := runJob(t, c, job)
	eventually(t, 15*time.Second, func() string {
		got, err := c.Allocations().Checks(alloc.ID, nil)
		if err != nil || got["group/svc/hdr"].Status != "success" {
			return fmt.Sprintf("checks: %+v %v (server saw %d requests, %d good)", got, err, seen.Load(), good.Load())
		}
		return ""
	})
	if good.Load() < 2 {
		t.Fatalf("passing after %d good requests, want success_before_passing = 2", good.Load())
	}
	stored, _, err := c.Jobs().Info("hdr", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := stored.TaskGroups[0].Services[0]
	if s.Meta["team"] != "a" || s.TaggedAddresses["lan"] != "10.0.0.1" || s.Checks[0].Header["X-Token"][0] != "s3cret" || s.Checks[0].SuccessBeforePassing != 2 {
		t.Fatalf("stored service lost fields: %+v", s)
	}
}
