package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// badJob returns a valid api job as JSON-ready maps, mutated by fn.
func badJob(fn func(job map[string]any)) map[string]any {
	job := map[string]any{
		"ID": "bad", "Type": "service", "Datacenters": []any{"dc1"},
		"TaskGroups": []any{map[string]any{
			"Name": "g", "Count": 1,
			"Tasks": []any{map[string]any{"Name": "t", "Driver": "exec"}},
		}},
	}
	if fn != nil {
		fn(job)
	}
	return map[string]any{"Job": job}
}

func group(job map[string]any) map[string]any {
	return job["TaskGroups"].([]any)[0].(map[string]any)
}

func task(job map[string]any) map[string]any {
	return group(job)["Tasks"].([]any)[0].(map[string]any)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestJobRegister_BadInputRejectedAndNothingWritten sends each kind of bad
// register request and checks the status, that the message names the
// problem, and that the state index did not move.
func TestJobRegister_BadInputRejectedAndNothingWritten(t *testing.T) {
	a, _ := testAgent(t, nil)
	cases := []struct {
		name     string
		method   string
		body     string
		wantCode int
		wantMsg  string
	}{
		{"malformed JSON", "PUT", `{"Job": {"ID": "x",}`, 400, "malformed JSON"},
		{"empty body", "PUT", ``, 400, "empty"},
		{"wrong field type", "PUT", `{"Job": {"ID": 7}}`, 400, "Job.ID"},
		{"unknown field", "PUT", `{"Job": {"ID": "x", "Bogus": 1}}`, 400, "Bogus"},
		{"missing job", "PUT", `{}`, 400, "Job"},
		{"empty ID", "PUT", mustJSON(badJob(func(j map[string]any) { j["ID"] = "" })), 400, "ID"},
		{"unknown job type", "PUT", mustJSON(badJob(func(j map[string]any) { j["Type"] = "cron" })), 400, "Type"},
		{"negative count", "PUT", mustJSON(badJob(func(j map[string]any) { group(j)["Count"] = -1 })), 400, "TaskGroups[0].Count"},
		{"missing driver", "PUT", mustJSON(badJob(func(j map[string]any) { task(j)["Driver"] = "" })), 400, "TaskGroups[0].Tasks[0].Driver"},
		{"no task groups", "PUT", mustJSON(badJob(func(j map[string]any) { j["TaskGroups"] = []any{} })), 400, "TaskGroups"},
		{"priority out of range", "PUT", mustJSON(badJob(func(j map[string]any) { j["Priority"] = 500 })), 400, "Priority"},
		{"trailing data", "PUT", mustJSON(badJob(nil)) + `{}`, 400, "after the JSON"},
		{"oversize body", "PUT", `{"Job": {"ID": "` + strings.Repeat("x", MaxRequestBodyBytes) + `"}}`, 413, "larger than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := a.Server().State().LatestIndex()
			code, msg := doRaw(t, a, tc.method, "/v1/jobs", tc.body)
			if code != tc.wantCode {
				t.Fatalf("status = %d, want %d (%s)", code, tc.wantCode, msg)
			}
			if !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("message %q does not mention %q", msg, tc.wantMsg)
			}
			if after := a.Server().State().LatestIndex(); after != before {
				t.Errorf("state index moved from %d to %d on a rejected request", before, after)
			}
		})
	}
}

func TestJobRegister_ReportsEveryProblemAtOnce(t *testing.T) {
	a, _ := testAgent(t, nil)
	body := mustJSON(badJob(func(j map[string]any) {
		j["Type"] = "nope"
		group(j)["Count"] = -2
		task(j)["Driver"] = ""
	}))
	code, msg := doRaw(t, a, "PUT", "/v1/jobs", body)
	if code != 400 {
		t.Fatalf("status %d: %s", code, msg)
	}
	for _, field := range []string{"Type", "TaskGroups[0].Count", "TaskGroups[0].Tasks[0].Driver"} {
		if !strings.Contains(msg, field) {
			t.Errorf("message %q does not name %s", msg, field)
		}
	}
}

func TestUnknownIDs_Return404(t *testing.T) {
	a, _ := testAgent(t, nil)
	for _, path := range []string{
		"/v1/job/nope", "/v1/job/nope/versions", "/v1/evaluation/nope",
		"/v1/allocation/nope", "/v1/node/nope", "/v1/no/such/endpoint",
	} {
		if code, msg := doRaw(t, a, "GET", path, ""); code != 404 {
			t.Errorf("GET %s = %d (%s), want 404", path, code, msg)
		}
	}
	before := a.Server().State().LatestIndex()
	if code, _ := doRaw(t, a, "DELETE", "/v1/job/nope", ""); code != 404 {
		t.Errorf("DELETE unknown job = %d, want 404", code)
	}
	if after := a.Server().State().LatestIndex(); after != before {
		t.Errorf("state index moved on a rejected deregister")
	}
}

func TestQueryParams_BadValuesRejected(t *testing.T) {
	a, _ := testAgent(t, nil)
	for _, path := range []string{
		"/v1/jobs?index=abc", "/v1/jobs?wait=soon", "/v1/evaluations?per_page=-1",
		"/v1/evaluations?status=running", "/v1/jobs?filter=" + "ID%20%3D%3D", "/v1/job/x?purge=maybe",
	} {
		method := "GET"
		if strings.Contains(path, "purge") {
			method = "DELETE"
		}
		if code, msg := doRaw(t, a, method, path, ""); code != 400 {
			t.Errorf("%s %s = %d (%s), want 400", method, path, code, msg)
		}
	}
}

func doRaw(t *testing.T, a *Agent, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+a.HTTPAddr()+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
}
