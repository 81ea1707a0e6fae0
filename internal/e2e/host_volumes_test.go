package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
)

// volumeJob claims host volume source and mounts it at /srv/data in a task
// of driver that prints the file the test put there.
func volumeJob(id, driver, source string) *api.Job {
	task := shellTask(driver, `cat "${MOUNT:-/srv/data}/hello.txt"; exec sleep 1000`)
	if driver == "raw_exec" {
		// No isolation: the mount is a link under the task dir.
		task.Env = map[string]string{"MOUNT": "${NOMAD_TASK_DIR}/../srv/data"}
	}
	task.VolumeMounts = []*api.VolumeMount{{Volume: pointer("data"), Destination: pointer("/srv/data"), ReadOnly: pointer(true)}}
	job := serviceJob(id, 1, task)
	job.TaskGroups[0].Volumes = map[string]*api.VolumeRequest{"data": {Name: "data", Type: "host", Source: source, ReadOnly: true}}
	return job
}

func TestHostVolumeIsReadableInTheTask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("from the host volume\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, c := startServer(t, func(cfg *config.Config) {
		cfg.Client.HostVolumes = []config.HostVolume{{Name: "shared", Path: dir, ReadOnly: true}}
	})
	node, _, err := c.Nodes().Info(a.Client().NodeID(), nil)
	if err != nil || node.HostVolumes["shared"] == nil || node.HostVolumes["shared"].Path != dir || !node.HostVolumes["shared"].ReadOnly {
		t.Fatalf("node host volumes: %v %+v", err, node.HostVolumes)
	}
	drivers := []string{"raw_exec"}
	if os.Geteuid() == 0 {
		drivers = append(drivers, "exec")
	}
	for _, driver := range drivers {
		id := "vol-" + strings.ReplaceAll(driver, "_", "-")
		register(t, c, volumeJob(id, driver, "shared"))
		alloc := runningAllocs(t, c, id, 1)[0]
		waitLogs(t, c, alloc, func(s string) bool { return s == "from the host volume\n" })
	}
}

// A job claiming a volume no node offers is not placed: its eval is
// blocked and FailedTGAllocs names the missing volume.
func TestMissingHostVolumeBlocksTheEval(t *testing.T) {
	t.Parallel()
	_, c := startServer(t, nil)
	register(t, c, volumeJob("novol", "raw_exec", "nowhere"))
	waitFor(t, 20*time.Second, "a blocked eval naming the volume", func() (bool, string) {
		var why []string
		for _, e := range evalsOf(t, c, "novol") {
			m := e.FailedTGAllocs["g"]
			if m == nil {
				why = append(why, e.Status)
				continue
			}
			for reason, n := range m.ConstraintFiltered {
				if n > 0 && strings.Contains(reason, "missing compatible host volumes") && strings.Contains(reason, "nowhere") && e.BlockedEval != "" {
					return true, ""
				}
				why = append(why, reason)
			}
		}
		return false, strings.Join(why, "; ")
	})
	blocked := 0
	for _, e := range evalsOf(t, c, "novol") {
		if e.Status == "blocked" {
			blocked++
		}
	}
	if blocked != 1 {
		t.Fatalf("%d blocked evals, want 1", blocked)
	}
}
