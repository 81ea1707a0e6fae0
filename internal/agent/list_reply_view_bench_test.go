package agent

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
)

// discardWriter is a ResponseWriter that keeps the status and headers
// and throws the body away (the network's share is not measured).
type discardWriter struct {
	h      http.Header
	status int
	n      int64
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(s int)   { w.status = s }
func (w *discardWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += int64(len(b))
	return len(b), nil
}

// BenchmarkAllocListLimitedToken measures one GET /v1/allocations?namespace=*
// by a token that reads two namespaces of three (ACLs on; handler,
// endpoint, state store and JSON; no network), with 50,000 running
// allocations it sees (no task states: a 32 MB reply, just under the
// cache's largest entry) and 10,000 it does not: answered from the
// whole-reply cache (the caller's view; the reply copied out of its
// memory file into a writer that discards it) and uncached (the cache's
// off switch). cpu-ms/op is the process's CPU (user + system) per
// request.
//
//	go test ./internal/agent -run '^$' -bench AllocListLimitedToken -benchtime 20x -count 3
func BenchmarkAllocListLimitedToken(b *testing.B) {
	a, c := testAgent(b, func(cfg *config.Config) { cfg.ACL.Enabled = true })
	root, _, err := c.ACLTokens().Bootstrap(nil)
	if err != nil {
		b.Fatal(err)
	}
	c.SetSecretID(root.SecretID)
	for _, ns := range []string{"prod", "dev"} {
		if _, err := c.Namespaces().Register(&api.Namespace{Name: ns}, nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := c.ACLPolicies().Upsert(&api.ACLPolicy{Name: "teams",
		Rules: `namespace "prod" { policy = "read" }` + "\n" + `namespace "dev" { policy = "read" }`}, nil); err != nil {
		b.Fatal(err)
	}
	tok, _, err := c.ACLTokens().Create(&api.ACLToken{Type: "client", Policies: []string{"teams"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	// Written to the state directly, past raft's index (nothing writes
	// allocs afterwards).
	st := a.Server().State()
	index := st.LatestIndex() + 1_000_000
	now := time.Unix(1_700_000_000, 0)
	const visible, hidden, batch = 50_000, 10_000, 5_000
	for start := 0; start < visible+hidden; start += batch {
		allocs := make([]*structs.Allocation, 0, batch)
		for i := start; i < start+batch; i++ {
			ns := []string{"prod", "dev"}[i%2]
			if i >= visible {
				ns = structs.DefaultNamespace
			}
			job := fmt.Sprintf("job-%d", i%500)
			allocs = append(allocs, &structs.Allocation{
				ID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), Namespace: ns, JobID: job,
				Name: fmt.Sprintf("%s.web[%d]", job, i%10), TaskGroup: "web",
				EvalID: fmt.Sprintf("%08x-1111-4000-8000-%012x", i, i), NodeID: fmt.Sprintf("%08x-2222-4000-8000-%012x", i%100, i%100),
				NodeName: fmt.Sprintf("node-%d", i%100), DesiredStatus: structs.AllocDesiredStatusRun, ClientStatus: structs.AllocClientStatusRunning,
				CreateTime: now.UnixNano(), ModifyTime: now.UnixNano(),
			})
		}
		index++
		if err := st.UpsertAllocs(index, allocs); err != nil {
			b.Fatal(err)
		}
	}
	h := a.http.Handler
	get := func(b *testing.B) *discardWriter {
		req := httptest.NewRequest(http.MethodGet, "/v1/allocations?namespace=*", nil)
		req.Header.Set("X-Nomad-Token", tok.SecretID)
		w := &discardWriter{h: http.Header{}}
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.h.Get("X-Nomad-Index") != strconv.FormatUint(index, 10) {
			b.Fatalf("%d, index %s", w.status, w.h.Get("X-Nomad-Index"))
		}
		return w
	}
	for _, cached := range []bool{true, false} {
		name := map[bool]string{true: "cached", false: "uncached"}[cached]
		b.Run(name, func(b *testing.B) {
			a.httpHandler.replies.off.Store(!cached)
			defer a.httpHandler.replies.off.Store(false)
			size := get(b).n // warms the cache
			hits := a.httpHandler.replies.stats().Hits
			b.ReportAllocs()
			b.ResetTimer()
			cpu := processCPU(b)
			for b.Loop() {
				get(b)
			}
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(size)/1e6, "reply-MB")
			if got := a.httpHandler.replies.stats().Hits - hits; cached && got != int64(b.N) {
				b.Fatalf("%d hits in %d requests", got, b.N)
			}
		})
	}
}
