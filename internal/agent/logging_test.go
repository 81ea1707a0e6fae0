package agent

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/syslog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/tlsutil/tlstest"
)

// syncBuffer is a bytes.Buffer safe for the agent's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestAgentLogging_JSONToFileWithRotation: log_json, log_file (a
// directory), log_rotate_bytes, log_rotate_max_files and
// log_include_location shape what lands on stderr and on disk.
func TestAgentLogging_JSONToFileWithRotation(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.LogLevel = "DEBUG"
	cfg.Logging = config.Logging{JSON: true, File: dir + "/", RotateBytes: 400, RotateMaxFiles: 2, IncludeLocation: true}
	var stderr syncBuffer
	log, out, err := NewLogger(cfg, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		log.Debug("a line long enough to fill the file quickly", "i", i)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(stderr.String(), "\n", 2)[0]
	var rec map[string]any
	if err := json.Unmarshal([]byte(first), &rec); err != nil || rec["msg"] == nil || rec["source"] == nil {
		t.Fatalf("stderr line %q is not JSON with a source: %v", first, err)
	}
	rotated, _ := filepath.Glob(filepath.Join(dir, "drover-*.log"))
	if len(rotated) != 2 {
		t.Fatalf("rotated files %v, want the 2 newest kept", rotated)
	}
	current, err := os.ReadFile(filepath.Join(dir, "drover.log"))
	if err != nil || len(current) == 0 || len(current) > 400 {
		t.Fatalf("current log file: %d bytes, %v", len(current), err)
	}
	last := strings.Split(strings.TrimSpace(string(current)), "\n")
	if !strings.Contains(last[len(last)-1], `"i":19`) {
		t.Fatalf("the newest line is not in drover.log: %q", last[len(last)-1])
	}
}

func TestLogFile_RotatesByDuration(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_700_000_000, 0)
	f, err := openLogFile(filepath.Join(dir, "agent.log"), 0, time.Hour, 0, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, "one\n")
	now = now.Add(59 * time.Minute)
	io.WriteString(f, "two\n")
	if old, _ := filepath.Glob(filepath.Join(dir, "agent-*.log")); len(old) != 0 {
		t.Fatalf("rotated before the hour: %v", old)
	}
	now = now.Add(time.Minute)
	io.WriteString(f, "three\n")
	old, _ := filepath.Glob(filepath.Join(dir, "agent-*.log"))
	cur, _ := os.ReadFile(filepath.Join(dir, "agent.log"))
	if len(old) != 1 || string(cur) != "three\n" {
		t.Fatalf("after an hour: rotated %v, current %q", old, cur)
	}
	if b, _ := os.ReadFile(old[0]); string(b) != "one\ntwo\n" {
		t.Fatalf("rotated file holds %q", b)
	}
}

// TestAgentLogging_Syslog: with enable_syslog the agent's records reach a
// syslog socket with the facility and severity they should have.
func TestAgentLogging_Syslog(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "log.sock")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Skipf("no unixgram sockets here: %v", err)
	}
	defer conn.Close()
	old := syslogDial
	syslogDial = func(p syslog.Priority, tag string) (*syslog.Writer, error) {
		return syslog.Dial("unixgram", sock, p, tag)
	}
	defer func() { syslogDial = old }()
	cfg := config.Default()
	cfg.Logging.EnableSyslog, cfg.Logging.SyslogFacility = true, "LOCAL3"
	log, out, err := NewLogger(cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	log.Warn("disk almost full", "free", "3%")
	buf := make([]byte, 2048)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, err := conn.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	// <PRI> = facility*8 + severity: LOCAL3 (19) and warning (4) = 156.
	got := string(buf[:n])
	if !strings.HasPrefix(got, "<156>") || !strings.Contains(got, "drover") || !strings.Contains(got, `msg="disk almost full" free=3%`) {
		t.Fatalf("syslog message %q", got)
	}
	if _, _, err := NewLogger(&config.Config{LogLevel: "INFO", Logging: config.Logging{EnableSyslog: true, SyslogFacility: "LOCAL0"}}, io.Discard); err != nil && !strings.Contains(err.Error(), "enable_syslog") {
		t.Fatalf("an unreachable syslog must say enable_syslog: %v", err)
	}
}

// TestAgentLogging_ReloadChangesTheLevel: the reload SIGHUP runs
// (Agent.Reload) changes log_level for every output at once.
func TestAgentLogging_ReloadChangesTheLevel(t *testing.T) {
	cfg := config.DevConfig()
	cfg.Ports.HTTP, cfg.Ports.RPC, cfg.Ports.Serf = 0, 0, 0
	cfg.Client.Enabled = false
	var stderr syncBuffer
	log, out, err := NewLogger(cfg, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(cfg, log, WithLogLevel(out.Level))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	a.log.Debug("before reload")
	next := *cfg
	next.LogLevel = "debug"
	if err := a.Reload(&next); err != nil {
		t.Fatal(err)
	}
	a.log.Debug("after reload")
	if s := stderr.String(); strings.Contains(s, "before reload") || !strings.Contains(s, "after reload") {
		t.Fatalf("log:\n%s", s)
	}
	next.LogLevel = "chatty"
	if err := a.Reload(&next); err == nil || !strings.Contains(err.Error(), "log_level") {
		t.Fatalf("a bad level must be refused: %v", err)
	}
}

// TestAgentReload_SwapsTheTLSCertificate: after the certificate files
// change, Reload makes new HTTPS connections see the new certificate.
func TestAgentReload_SwapsTheTLSCertificate(t *testing.T) {
	ca := tlstest.NewCA(t, "cluster")
	certA, keyA := ca.Issue(t, "a", "server.global.nomad", "localhost")
	certB, keyB := ca.Issue(t, "b", "server.global.nomad", "localhost")
	var cfg *config.Config
	a, _ := testAgent(t, func(c *config.Config) {
		c.TLS = config.TLSConfig{HTTP: true, CAFile: ca.File, CertFile: certA, KeyFile: keyA}
		cfg = c
	})
	serial := func() string {
		conn, err := tls.Dial("tcp", a.HTTPAddr(), &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].SerialNumber.String()
	}
	before := serial()
	next := *cfg
	next.TLS.CertFile, next.TLS.KeyFile = certB, keyB
	if err := a.Reload(&next); err != nil {
		t.Fatal(err)
	}
	after := serial()
	if after == before {
		t.Fatalf("the certificate did not change on reload (serial %s)", after)
	}
	next.TLS.HTTP = false
	if err := a.Reload(&next); err == nil {
		t.Fatal("turning TLS off needs a restart: reload must refuse it")
	}
}

// TestLeaveOnSignal: with leave_on_terminate a server stopped by SIGTERM
// leaves: the others drop it from raft at once. Without it (SIGINT with
// leave_on_interrupt off) a stopped server stays a raft peer.
func TestLeaveOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-server cluster")
	}
	nodes, leader := startThreeServers(t)
	// The leader publishes autopilot's health under Nomad's names.
	waitFor(t, "nomad.autopilot.healthy and failure_tolerance on the leader", 30*time.Second, func() (bool, string) {
		_, text := doRaw(t, leader.agent, "GET", "/v1/metrics?format=prometheus", "")
		ok := strings.Contains(text, "\nnomad_autopilot_healthy 1\n") && strings.Contains(text, "\nnomad_autopilot_failure_tolerance 1\n")
		return ok, "not yet"
	})
	var leaving, staying *clusterNode
	for _, n := range nodes {
		if n != leader && leaving == nil {
			leaving = n
		} else if n != leader {
			staying = n
		}
	}
	leaving.agent.config.LeaveOnTerminate = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := leaving.agent.ShutdownOnSignal(ctx, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	leaving.agent = nil
	peers := func() int {
		f, err := leader.api.Operator().RaftGetConfiguration(&api.QueryOptions{AllowStale: true})
		if err != nil {
			return -1
		}
		return len(f.Servers)
	}
	waitFor(t, "the leaver is out of raft", 20*time.Second, func() (bool, string) { return peers() == 2, itoa(peers()) })
	if err := staying.agent.ShutdownOnSignal(ctx, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	staying.agent = nil
	waitFor(t, "the stopped server is seen failed", 20*time.Second, func() (bool, string) {
		m, err := leader.api.Agent().Members()
		if err != nil {
			return false, err.Error()
		}
		for _, x := range m.Members {
			if strings.HasPrefix(x.Name, staying.name+".") {
				return x.Status == "failed", x.Status
			}
		}
		return false, "not a member"
	})
	if n := peers(); n != 2 {
		t.Fatalf("a server stopped without leave_on_interrupt left raft: %d peers", n)
	}
}
