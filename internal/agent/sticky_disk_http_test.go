package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// stickyJob appends its version to a file in alloc/data and one in
// local/, then sleeps.
func stickyJob(version string, sticky bool) *api.Job {
	job := shellJob("sticky", `echo `+version+` >> "$NOMAD_ALLOC_DIR/data/seen"; echo `+version+` >> "$NOMAD_TASK_DIR/seen"; exec sleep 1000`)
	job.TaskGroups[0].EphemeralDisk = &api.EphemeralDisk{Sticky: pointer(sticky), SizeMB: pointer(150)}
	job.TaskGroups[0].Tasks[0].Env = map[string]string{"V": version}
	return job
}

// With ephemeral_disk { sticky = true }, a job update's replacement on
// the same node starts with the previous alloc's alloc/data and local/
// (the files hold both versions' lines); without it, they start empty.
func TestStickyDisk_ReplacementKeepsTheData(t *testing.T) {
	for _, sticky := range []bool{true, false} {
		t.Run(fmt.Sprint("sticky=", sticky), func(t *testing.T) {
			_, c := clientTestAgent(t)
			first := runJob(t, c, stickyJob("one", sticky))
			testutil.WaitFor(t, 20*time.Second, "v1 wrote its files", func() (bool, string) {
				got, err := catAllocFile(c, first, "t/local/seen")
				return got == "one\n", fmt.Sprint(got, err)
			})
			if _, _, err := c.Jobs().Register(stickyJob("two", sticky), nil); err != nil {
				t.Fatal(err)
			}
			var next *api.Allocation
			testutil.WaitFor(t, 30*time.Second, "the replacement running", func() (bool, string) {
				stubs, _, err := c.Jobs().Allocations("sticky", false, nil)
				if err != nil {
					return false, err.Error()
				}
				for _, s := range stubs {
					if s.ID != first.ID && s.ClientStatus == "running" {
						next, _, err = c.Allocations().Info(s.ID, nil)
						return err == nil, fmt.Sprint(err)
					}
				}
				return false, allocProgress(stubs)
			})
			want := "two\n"
			if sticky {
				want = "one\ntwo\n"
				if next.PreviousAllocation != first.ID || next.NodeID != first.NodeID {
					t.Fatalf("replacement %s on %s (previous %q), want a replacement of %s on %s", next.ID, next.NodeID, next.PreviousAllocation, first.ID, first.NodeID)
				}
			}
			for _, p := range []string{"alloc/data/seen", "t/local/seen"} {
				testutil.WaitFor(t, 20*time.Second, "v2 wrote "+p, func() (bool, string) {
					got, err := catAllocFile(c, next, p)
					return strings.HasSuffix(got, "two\n"), fmt.Sprint(got, err)
				})
				if got, _ := catAllocFile(c, next, p); got != want {
					t.Fatalf("%s = %q, want %q", p, got, want)
				}
			}
		})
	}
}
