package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// With memory oversubscription enabled (Nomad's scheduler setting),
// memory_max travels from the job through the scheduler's grant to the
// task, through a real client: the task sees NOMAD_MEMORY_MAX_LIMIT (and
// its reservation as NOMAD_MEMORY_LIMIT), and the alloc's granted
// resources carry it. (The exec driver makes it the cgroup's hard limit:
// exec's TestLimitsTable and TestCgroupLimitsVisibleInTask.)
func TestMemoryMax_ReachesTheTask(t *testing.T) {
	_, c := clientTestAgent(t)
	if _, _, err := c.Operator().SchedulerSetConfiguration(&api.SchedulerConfiguration{
		SchedulerAlgorithm: "binpack", MemoryOversubscriptionEnabled: true}, nil); err != nil {
		t.Fatal(err)
	}
	job := shellJob("memmax", `echo "$NOMAD_MEMORY_LIMIT/$NOMAD_MEMORY_MAX_LIMIT" > "$NOMAD_TASK_DIR/mem"; exec sleep 1000`)
	job.TaskGroups[0].Tasks[0].Resources.MemoryMaxMB = pointer(96)
	alloc := runJob(t, c, job)
	eventually(t, 20*time.Second, func() string {
		got, err := catAllocFile(c, alloc, "t/local/mem")
		if err != nil || got != "32/96\n" {
			return fmt.Sprintf("task saw %q (%v), want 32/96", got, err)
		}
		return ""
	})
	if tr := alloc.AllocatedResources.Tasks["t"]; tr == nil || tr.Memory.MemoryMaxMB != 96 || tr.Memory.MemoryMB != 32 {
		t.Fatalf("granted %+v, want memory 32 and memory_max 96", alloc.AllocatedResources.Tasks["t"])
	}
}

// memory_max while memory oversubscription is off is not silently
// dropped: register and plan warn that it is ignored, as Nomad does; with
// oversubscription on, neither warns (seen failing: no warning).
func TestMemoryMax_WarnsWhileOversubscriptionIsOff(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("memmax-warn", "exec sleep 1000")
	job.TaskGroups[0].Tasks[0].Resources.MemoryMaxMB = pointer(96)
	plan, _, err := c.Jobs().Plan(job, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, _, err := c.Jobs().Register(job, nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, w := range map[string]string{"plan": plan.Warnings, "register": reg.Warnings} {
		if !strings.Contains(w, `"g.t": memory_max is ignored while memory oversubscription is off`) {
			t.Errorf("%s warnings %q, want the ignored memory_max named", what, w)
		}
	}
	if _, _, err := c.Operator().SchedulerSetConfiguration(&api.SchedulerConfiguration{
		SchedulerAlgorithm: "binpack", MemoryOversubscriptionEnabled: true}, nil); err != nil {
		t.Fatal(err)
	}
	if reg, _, err = c.Jobs().Register(job, nil); err != nil || strings.Contains(reg.Warnings, "memory_max") {
		t.Fatalf("with oversubscription on: warnings %q, err %v", reg.Warnings, err)
	}
}

// logs { disabled = true } leaves the task's output uncollected, through a
// real client: alloc/logs holds the logging task's files and none of the
// silenced one's.
func TestLogsDisabled_NoLogFiles(t *testing.T) {
	_, c := clientTestAgent(t)
	job := shellJob("nologs", `echo loud; exec sleep 1000`)
	quiet := api.NewTask("quiet", "raw_exec")
	quiet.Config = map[string]any{"command": "/bin/sh", "args": []any{"-c", "echo quiet; exec sleep 1000"}}
	quiet.Require(&api.Resources{CPU: pointer(50), MemoryMB: pointer(32)})
	quiet.KillTimeout = pointer(time.Second)
	quiet.LogConfig = &api.LogConfig{Disabled: pointer(true), MaxFiles: pointer(2), MaxFileSizeMB: pointer(1)}
	job.TaskGroups[0].AddTask(quiet)
	alloc := runJob(t, c, job)
	var names []string
	eventually(t, 20*time.Second, func() string {
		files, _, err := c.AllocFS().List(alloc, "alloc/logs", nil)
		if err != nil {
			return err.Error()
		}
		names = names[:0]
		for _, f := range files {
			names = append(names, f.Name)
		}
		if !strings.Contains(strings.Join(names, " "), "t.stdout.0") {
			return fmt.Sprintf("logs %v: the logging task's files not there yet", names)
		}
		return ""
	})
	for _, n := range names {
		if strings.HasPrefix(n, "quiet.") {
			t.Fatalf("logs disabled, yet alloc/logs holds %s (%v)", n, names)
		}
	}
}
