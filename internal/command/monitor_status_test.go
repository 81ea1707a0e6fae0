package command

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// TestReportFinished_CanceledIsNotAFailure: an eval the broker canceled
// because a newer one for the job superseded it ends the monitor with
// success (job run then follows the deployment); a failed eval, or one
// with placement failures, exits 2. job run of a new version used to exit
// 2 when its register eval lost that race.
func TestReportFinished_CanceledIsNotAFailure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("[]")) // the eval's allocations: none
	}))
	defer srv.Close()
	for _, c := range []struct {
		ev       api.Evaluation
		wantFail bool
	}{
		{api.Evaluation{ID: "00000000-0000-0000-0000-000000000001", Status: "complete"}, false},
		{api.Evaluation{ID: "00000000-0000-0000-0000-000000000002", Status: "canceled"}, false},
		{api.Evaluation{ID: "00000000-0000-0000-0000-000000000003", Status: "failed"}, true},
		{api.Evaluation{ID: "00000000-0000-0000-0000-000000000004", Status: "complete", BlockedEval: "b"}, true},
	} {
		var out bytes.Buffer
		e := newEnv(&out, &out, func(string) string { return "" })
		e.address = srv.URL
		_, err := e.reportFinished(&c.ev)
		if (err != nil) != c.wantFail {
			t.Errorf("status %q blocked %q: err %v, want failure %v", c.ev.Status, c.ev.BlockedEval, err, c.wantFail)
		}
	}
}
