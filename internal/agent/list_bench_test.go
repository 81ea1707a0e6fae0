package agent

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// BenchmarkEvalListPage measures the server's time for one
// GET /v1/evaluations?per_page=20 (handler, endpoint, state store, JSON;
// no network) with 100k evaluations stored: a page costs what the page
// costs, not what the table holds.
//
//	go test ./internal/agent -run '^$' -bench EvalListPage -benchtime 2000x
func BenchmarkEvalListPage(b *testing.B) {
	const total, batch = 100_000, 5_000
	a, _ := testAgent(b, nil)
	for start := 0; start < total; start += batch {
		evals := make([]*structs.Evaluation, 0, batch)
		for i := start; i < start+batch; i++ {
			// Complete: stored as written, nothing schedules them.
			evals = append(evals, &structs.Evaluation{
				ID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), Namespace: structs.DefaultNamespace,
				Priority: 50, Type: structs.JobTypeService, TriggeredBy: structs.EvalTriggerJobRegister,
				JobID: fmt.Sprintf("job-%d", i%500), Status: structs.EvalStatusComplete,
			})
		}
		if err := a.Server().UpsertEvals(evals); err != nil {
			b.Fatal(err)
		}
	}
	h := a.http.Handler
	for _, url := range []string{
		"/v1/evaluations?per_page=20",
		"/v1/evaluations?per_page=20&next_token=00010000-0000-4000-8000-000000010000",
		"/v1/evaluations?per_page=20&reverse=true",
	} {
		b.Run(url, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
				if rec.Code != http.StatusOK || rec.Header().Get("X-Nomad-NextToken") == "" {
					b.Fatalf("%s: %d %q", url, rec.Code, rec.Body.String())
				}
			}
		})
	}
}
