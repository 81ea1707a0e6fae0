package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

func TestRawExecServiceRunsAndLogsAreReadable(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, nil)
	register(t, c, serviceJob("hello", 1, shellTask("raw_exec", `echo "hello from $NOMAD_TASK_NAME"; echo warn >&2; exec sleep 1000`)))
	a := runningAllocs(t, c, "hello", 1)[0]
	waitLogs(t, c, a, func(s string) bool { return s == "hello from t\n" })
	// stderr is copied by its own tailer: it may trail stdout a poll.
	waitFor(t, 15*time.Second, "stderr of alloc "+a.ID, func() (bool, string) {
		got := readLogs(t, c, a, "t", "stderr")
		return got == "warn\n", fmt.Sprintf("%q", got)
	})
}

// pidsLine parses the "pids N N N" line a task prints.
func pidsLine(out string) []int {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "pids" {
			continue
		}
		var pids []int
		for _, s := range f[1:] {
			if n, err := strconv.Atoi(s); err == nil {
				pids = append(pids, n)
			}
		}
		return pids
	}
	return nil
}

// treeScript starts two children and prints its own and their PIDs.
const treeScript = `sleep 1000 & a=$!; sleep 1000 & b=$!; echo pids $$ $a $b; wait`

func TestStopJobStopsEveryProcess(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, nil)
	job := serviceJob("tree", 2, shellTask("raw_exec", treeScript))
	// A task that ignores SIGTERM must still go, after its kill timeout.
	stubborn := shellTask("raw_exec", `trap "" TERM; `+treeScript)
	stubborn.Name = "stubborn"
	job.TaskGroups[0].AddTask(stubborn)
	register(t, c, job)
	var pids []int
	for _, a := range runningAllocs(t, c, "tree", 2) {
		for _, task := range []string{"t", "stubborn"} {
			var got []int
			waitFor(t, 15*time.Second, "pids of "+task, func() (bool, string) {
				out := readLogs(t, c, a, task, "stdout")
				got = pidsLine(out)
				return len(got) == 3, out
			})
			pids = append(pids, got...)
		}
	}
	for _, pid := range pids {
		if !processAlive(pid) {
			t.Fatalf("pid %d not running before the stop", pid)
		}
	}
	if _, _, err := c.Jobs().Deregister("tree", false, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "allocs of tree stopped", func() (bool, string) {
		var states []string
		done := true
		for _, a := range jobAllocs(t, c, "tree") {
			states = append(states, a.ClientStatus)
			done = done && a.ClientStatus == api.AllocClientStatusComplete
		}
		return done, strings.Join(states, ",")
	})
	waitFor(t, 10*time.Second, "every task process gone", func() (bool, string) {
		for _, pid := range pids {
			if processAlive(pid) {
				return false, "pid " + strconv.Itoa(pid) + " alive"
			}
		}
		return true, ""
	})
}
