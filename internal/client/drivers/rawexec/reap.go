package rawexec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/procutil"
)

// Every task Start launches leaves a group record next to its exit file
// (in the alloc dir) from the moment its supervisor exists until Destroy:
// the supervisor's PID, which is the task's process group, and its start
// time. A client that died before it persisted the task's handle (or an
// alloc dir whose alloc the client no longer has) leaves a record that no
// handle claims; ReapOrphans kills those groups when the client starts.

// groupRecord is a group record's content.
type groupRecord struct {
	TaskID    string
	PGID      int
	StartTime uint64 // the supervisor's, from /proc/PGID/stat
}

const groupRecordSuffix = ".group.json"

func groupRecordPath(exitFile string) string {
	return strings.TrimSuffix(exitFile, ".exit.json") + groupRecordSuffix
}

func writeGroupRecord(path string, rec groupRecord) error {
	b, _ := json.Marshal(rec)
	return os.WriteFile(path, b, 0o600)
}

// ReapOrphans kills the raw_exec process groups recorded under allocRoot
// (the client's alloc dir) that none of the persisted handles claims, and
// removes their records; it returns the groups it killed. Only processes
// Drover started are touched: a group is killed while its supervisor runs
// with the recorded start time (so the PID was not recycled), and once the
// supervisor is gone only the members that joined the group after it
// started are killed, one by one (a PID still used as a group ID is not
// given to a new process, so they are the task's).
func ReapOrphans(allocRoot string, handles []*drivers.TaskHandle) []int {
	claimed := map[int]bool{}
	for _, h := range handles {
		if h == nil || h.Driver != Name {
			continue
		}
		var st taskState
		if json.Unmarshal(h.State, &st) == nil && st.PID > 0 {
			claimed[st.PID] = true
		}
	}
	paths, _ := filepath.Glob(filepath.Join(allocRoot, "*", "raw_exec-*"+groupRecordSuffix))
	var killed []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		var rec groupRecord
		if err != nil || json.Unmarshal(b, &rec) != nil || rec.PGID <= 1 {
			continue
		}
		if claimed[rec.PGID] {
			continue // a restored task: its runner re-attaches to it
		}
		if killGroup(rec) {
			killed = append(killed, rec.PGID)
		}
		_ = os.Remove(p)
	}
	return killed
}

// killGroup SIGKILLs what is left of a recorded group; it reports whether
// any process was there.
func killGroup(rec groupRecord) bool {
	if procutil.Alive(rec.PGID, rec.StartTime) {
		return procutil.SignalGroup(rec.PGID, syscall.SIGKILL) == nil
	}
	if _, err := procutil.ReadStat(rec.PGID); err == nil {
		return false // the PID is another process now: not ours
	}
	any := false
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procutil.ReadStat(pid)
		if err != nil || st.PGID != rec.PGID || st.StartTime < rec.StartTime || st.State == 'Z' {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
		any = true
	}
	return any
}
