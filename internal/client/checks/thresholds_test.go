package checks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// success_before_passing, failures_before_warning and
// failures_before_critical: the status moves only after that many raw
// results in a row, and a failing streak between the two failure
// thresholds is a warning.
func TestThresholds(t *testing.T) {
	P, F, W := StatusPassing, StatusFailing, StatusWarning
	cases := []struct {
		name              string
		sbp, fbw, fbc     int
		raw, wantStatuses []string
	}{
		{"no thresholds follow the raw result", 0, 0, 0, []string{P, F, P}, []string{P, F, P}},
		{"success_before_passing 3", 3, 0, 0, []string{P, P, P, F, P, P, P}, []string{StatusPending, StatusPending, P, F, F, F, P}},
		{"failures_before_critical 2", 0, 0, 2, []string{P, F, P, F, F}, []string{P, P, P, P, F}},
		{"failures_before_warning 1, critical 3", 0, 1, 3, []string{P, F, F, F, P}, []string{P, W, W, F, P}},
		{"warning threshold 2 below critical 4", 0, 2, 4, []string{P, F, F, F, F}, []string{P, P, W, W, F}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Status: StatusPending, Check: Check{SuccessBeforePassing: tc.sbp, FailuresBeforeWarning: tc.fbw, FailuresBeforeCritical: tc.fbc}}
			for i, raw := range tc.raw {
				r.Status = thresholds(r, raw)
				if r.Status != tc.wantStatuses[i] {
					t.Fatalf("result %d (%s): status %s, want %s", i, raw, r.Status, tc.wantStatuses[i])
				}
			}
		})
	}
}

// on_update: "ignore" checks do not count for deployment health and an
// "ignore_warnings" check's warning passes.
func TestForDeployment(t *testing.T) {
	in := []Result{
		{Check: Check{ID: "a", OnUpdate: structs.OnUpdateRequireHealthy}, Status: StatusWarning},
		{Check: Check{ID: "b", OnUpdate: structs.OnUpdateIgnoreWarnings}, Status: StatusWarning},
		{Check: Check{ID: "c", OnUpdate: structs.OnUpdateIgnore}, Status: StatusFailing},
		{Check: Check{ID: "d"}, Status: StatusPassing},
	}
	got := ForDeployment(in)
	if len(got) != 3 || got[0].Status != StatusWarning || got[1].Status != StatusPassing || got[2].Check.ID != "d" {
		t.Fatalf("ForDeployment = %+v", got)
	}
	if in[1].Status != StatusWarning {
		t.Fatal("ForDeployment changed its input")
	}
	if _, ok := PassingSince(ForDeployment(in[1:])); !ok {
		t.Fatal("an ignored failure and a warning with ignore_warnings block deployment health")
	}
}

// An http check sends its method, header block (Host included) and body.
func TestProbeHTTP_SendsHeaderBodyAndMethod(t *testing.T) {
	var got struct{ method, host, auth, multi, body string }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.host, got.auth, got.body = r.Method, r.Host, r.Header.Get("Authorization"), string(b)
		got.multi = strings.Join(r.Header.Values("X-Multi"), ",")
		if r.Header.Get("Authorization") != "Bearer t" {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	c := Check{Type: TypeHTTP, Address: strings.TrimPrefix(srv.URL, "http://"), Path: "/h", Method: "POST", Body: `{"ping":1}`,
		Header: map[string][]string{"Authorization": {"Bearer t"}, "X-Multi": {"1", "2"}, "Host": {"example.test"}}}
	o := probeHTTP(context.Background(), newHTTPClient(), c)
	if !o.passing || got.method != "POST" || got.host != "example.test" || got.auth != "Bearer t" || got.multi != "1,2" || got.body != `{"ping":1}` {
		t.Fatalf("outcome %+v, server saw %+v", o, got)
	}
}

// tls_skip_verify and tls_server_name reach an https check: a
// self-signed server fails verification without skip, and passes with it.
func TestChecker_HTTPSTLSOptions(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "https://")
	base := Check{Type: TypeHTTP, Protocol: "https", Address: addr, Timeout: DefaultTimeout}
	skip := base
	skip.TLSSkipVerify, skip.TLSServerName = true, "example.test"
	ch := New(Config{}, []Check{base, skip})
	defer ch.Stop()
	if o := ch.probe(context.Background(), 0, base); o.passing {
		t.Fatalf("verified a self-signed certificate: %+v", o)
	}
	if o := ch.probe(context.Background(), 1, skip); !o.passing {
		t.Fatalf("tls_skip_verify: %+v", o)
	}
	tr := ch.tlsHTTP[1].Transport.(*http.Transport)
	if tr.TLSClientConfig.ServerName != "example.test" {
		t.Fatalf("server name = %q", tr.TLSClientConfig.ServerName)
	}
}
