package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `agent -dev -config F` layers only what F sets over the dev config: a
// file that does not set bind_addr must not move dev off loopback.
func TestLoadDev_StaysOnLoopbackUnlessFileSetsBindAddr(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.hcl", `log_level = "DEBUG"
plugin "raw_exec" {
  config {
    enabled = true
  }
}`)
	c, err := LoadDev(plain)
	if err != nil {
		t.Fatal(err)
	}
	if c.BindAddr != "127.0.0.1" || !c.DevMode || c.LogLevel != "DEBUG" {
		t.Fatalf("dev + file: bind %q dev %v level %q", c.BindAddr, c.DevMode, c.LogLevel)
	}
	open := write("open.hcl", `bind_addr = "0.0.0.0"`)
	if c, err = LoadDev(open); err != nil || c.BindAddr != "0.0.0.0" {
		t.Fatalf("explicit bind_addr: %q, %v", c.BindAddr, err)
	}
}

func TestLoad_LimitsAndJobMaxCount(t *testing.T) {
	c, err := LoadBytes("x.hcl", []byte("limits {\n  http_max_conns_per_client = 7\n  rpc_max_conns_per_client = 9\n  https_handshake_timeout = \"5s\"\n}\nserver {\n  job_max_count = 42\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	merged := Default().Merge(c)
	if merged.Limits.HTTPMaxConnsPerClient != 7 || merged.Limits.RPCMaxConnsPerClient != 9 || merged.Server.JobMaxCount != 42 {
		t.Fatalf("limits %+v, job_max_count %d", merged.Limits, merged.Server.JobMaxCount)
	}
	if d := Default(); d.Limits.HTTPMaxConnsPerClient != 100 || d.Limits.RPCMaxConnsPerClient != 100 ||
		d.Limits.HTTPSHandshakeTimeout != 5*time.Second || d.Limits.RPCHandshakeTimeout != 5*time.Second {
		t.Fatalf("default limits %+v, want Nomad's 100/100 and 5s/5s", d.Limits)
	}
}

func TestLoad_HandshakeTimeouts(t *testing.T) {
	cases := []struct {
		body       string
		https, rpc time.Duration
		err        string
	}{
		{`https_handshake_timeout = "250ms"` + "\n" + `rpc_handshake_timeout = "2s"`, 250 * time.Millisecond, 2 * time.Second, ""},
		{`rpc_handshake_timeout = "0s"`, 5 * time.Second, 0, ""},
		{`https_handshake_timeout = "-1s"`, 0, 0, "may not be negative"},
		{`rpc_handshake_timeout = "soon"`, 0, 0, "not a duration"},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			c := Default()
			err := applySource(c, "x.hcl", []byte("limits {\n"+tc.body+"\n}\n"))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Limits.HTTPSHandshakeTimeout != tc.https || c.Limits.RPCHandshakeTimeout != tc.rpc {
				t.Fatalf("limits %+v", c.Limits)
			}
		})
	}
}
