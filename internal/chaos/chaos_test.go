package chaos

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CI run is short: 3 servers, a killed leader, a partitioned leader,
// a killed follower, a paused leader and the restart of that deposed
// leader (its log, whose uncommitted tail it truncated on rejoining, must
// open again). Longer runs:
// go test ./internal/chaos -run TestChaos$ -chaos.rounds 30 -chaos.servers 5 -chaos.faults all
// (or `drover chaos`).
var (
	rounds  = flag.Int("chaos.rounds", 5, "rounds of the fault harness")
	servers = flag.Int("chaos.servers", 3, "server processes")
	faults  = flag.String("chaos.faults", "kill-leader,partition-leader,kill-follower,pause-leader,restart-follower", "fault cycle, comma-separated, or all")
)

func faultList() []string {
	if *faults == "all" {
		return nil
	}
	return strings.Split(*faults, ",")
}

// buildDrover builds the drover binary once for the test.
func buildDrover(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is needed to build the drover binary the servers run")
	}
	bin := filepath.Join(t.TempDir(), "drover")
	cmd := exec.Command(goBin, "build", "-o", bin, "../../cmd/drover")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build drover: %v\n%s", err, out)
	}
	return bin
}

func TestChaos(t *testing.T) {
	runChaos(t, *servers, *rounds, faultList())
}

// TestChaosPartitionFiveServers isolates the leader with one follower: the
// follower forwards its write to the old leader (or finds none), and the
// minority side must acknowledge nothing.
func TestChaosPartitionFiveServers(t *testing.T) {
	runChaos(t, 5, 1, []string{FaultPartitionLead})
}

func runChaos(t *testing.T, servers, rounds int, faults []string) {
	if testing.Short() {
		t.Skip("runs real server processes")
	}
	bin := buildDrover(t)
	var log bytes.Buffer
	work := t.TempDir()
	report, err := Run(context.Background(), Config{Binary: bin, Servers: servers, Rounds: rounds, Faults: faults,
		Nodes: 4, Seed: 1, WorkDir: work, Log: &log})
	if report != nil {
		report.Print(&log)
	}
	t.Log("\n" + log.String())
	if err != nil {
		dumpLogs(t, work)
		t.Fatal(err)
	}
	if report.Faults != rounds || len(report.SchedulingResumed) != rounds {
		t.Fatalf("faults %d, scheduling measured %d times, want %d", report.Faults, len(report.SchedulingResumed), rounds)
	}
	if report.TaskProcsSeen == 0 {
		t.Fatal("no task process of the real client was ever seen: the orphan process check looked at nothing")
	}
	if report.AckedWrites == 0 {
		t.Fatal("no write was acknowledged: the load never ran")
	}
	if report.FaultCounts[FaultPartitionLead]+report.FaultCounts[FaultPartitionDrop] > 0 && report.MinorityWrites == 0 {
		t.Fatal("a partition round sent no write to the minority side")
	}
	if !report.OK() {
		dumpLogs(t, work)
		t.Fatal("a check failed (see the figures above)")
	}
}

// dumpLogs shows the tail of each server's log when a run fails.
func dumpLogs(t *testing.T, work string) {
	logs, _ := filepath.Glob(filepath.Join(work, "*", "agent.log"))
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		t.Logf("--- %s ---\n%s", l, data)
	}
}
