package chaos

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestFaultGap(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w := func(sent, answered int, ok bool) seqWrite {
		return seqWrite{sent: at(sent), answered: at(answered), ok: ok}
	}
	tests := []struct {
		name           string
		writes         []seqWrite
		start, elected int
		gap, beyond    time.Duration
		ok             bool
	}{
		{"resumed after the election", []seqWrite{w(0, 100, true), w(100, 2100, false), w(2100, 3200, true), w(3200, 3300, true)},
			50, 3000, 3100 * time.Millisecond, 200 * time.Millisecond, true},
		{"an ack before the fault does not count", []seqWrite{w(0, 10, true), w(10, 4000, true)},
			100, 3500, 3900 * time.Millisecond, 500 * time.Millisecond, true},
		{"failures are not acknowledgements", []seqWrite{w(0, 2000, false), w(2000, 4000, false)},
			0, 1000, 0, 0, false},
		{"never resumed", []seqWrite{w(0, 500, true)}, 0, 1000, 500 * time.Millisecond, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gap, beyond, ok := faultGap(tt.writes, at(tt.start), at(tt.elected))
			if gap != tt.gap || beyond != tt.beyond || ok != tt.ok {
				t.Fatalf("got gap %s beyond %s ok %v, want %s %s %v", gap, beyond, ok, tt.gap, tt.beyond, tt.ok)
			}
		})
	}
}

func TestParseTaskEnv(t *testing.T) {
	tests := []struct {
		name, env, root string
		alloc           string
		ok              bool
	}{
		{"a task of ours", "PATH=/bin\x00NOMAD_ALLOC_ID=a1\x00NOMAD_ALLOC_DIR=/w/chaos-client-1/data/alloc/a1/alloc\x00", "/w", "a1", true},
		{"root with a slash", "NOMAD_ALLOC_DIR=/w/c/alloc\x00NOMAD_ALLOC_ID=a2", "/w/", "a2", true},
		{"another agent's task", "NOMAD_ALLOC_ID=a3\x00NOMAD_ALLOC_DIR=/other/alloc", "/w", "", false},
		{"a prefix is not a parent", "NOMAD_ALLOC_ID=a4\x00NOMAD_ALLOC_DIR=/w2/alloc", "/w", "", false},
		{"no alloc id", "NOMAD_ALLOC_DIR=/w/alloc", "/w", "", false},
		{"not a task", "HOME=/root\x00PATH=/bin", "/w", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := parseTaskEnv(7, []byte(tt.env), tt.root)
			if ok != tt.ok || p.allocID != tt.alloc || (ok && p.pid != 7) {
				t.Fatalf("got %+v %v, want alloc %q %v", p, ok, tt.alloc, tt.ok)
			}
		})
	}
}

// TestTaskProcsFindsTasks runs a process with a task's environment under a
// work dir and one under another dir: the scan finds the first only.
func TestTaskProcsFindsTasks(t *testing.T) {
	root := t.TempDir()
	start := func(allocID, allocDir string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = []string{"NOMAD_ALLOC_ID=" + allocID, "NOMAD_ALLOC_DIR=" + allocDir}
		if err := cmd.Start(); err != nil {
			t.Skipf("cannot run sleep: %v", err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	ours := start("alloc-ours", filepath.Join(root, "client", "data", "alloc", "alloc-ours", "alloc"))
	start("alloc-theirs", filepath.Join(t.TempDir(), "alloc"))
	found := map[string]int{}
	for _, p := range taskProcs(root) {
		found[p.allocID] = p.pid
	}
	if len(found) != 1 || found["alloc-ours"] != ours.Process.Pid {
		t.Fatalf("found %v, want only alloc-ours at pid %d", found, ours.Process.Pid)
	}
}
