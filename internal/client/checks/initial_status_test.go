package checks

import (
	"net"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// A check's initial_status is its status until the first result, which
// then replaces it (held, like any status, by success_before_passing);
// unset, the check is pending. The status reaches ForDeployment and
// PassingSince as any result does.
func TestChecker_InitialStatus(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cases := []struct {
		initial      string
		before       string
		sbp          int
		afterFirst   string
		passingFirst bool
	}{
		{"", StatusPending, 0, StatusPassing, false},
		{structs.CheckStatusPassing, StatusPassing, 0, StatusPassing, true},
		{structs.CheckStatusWarning, StatusWarning, 0, StatusPassing, false},
		{structs.CheckStatusCritical, StatusFailing, 0, StatusPassing, false},
		// success_before_passing 2: one passing result leaves the initial status.
		{structs.CheckStatusCritical, StatusFailing, 2, StatusFailing, false},
	}
	for _, tc := range cases {
		t.Run(tc.initial+"/"+tc.afterFirst, func(t *testing.T) {
			tg := &structs.TaskGroup{Name: "g", Services: []*structs.Service{{Name: "web", PortLabel: "9", Checks: []*structs.ServiceCheck{
				{Name: "c", Type: TypeTCP, Interval: time.Second, InitialStatus: tc.initial, SuccessBeforePassing: tc.sbp}}}}}
			defs := FromAlloc(allocWith(tg, nil))
			if len(defs) != 1 {
				t.Fatalf("defs = %+v", defs)
			}
			defs[0].Address = ln.Addr().String()
			ch, c, _ := newTestChecker(defs...)
			defer ch.Stop()
			before := ch.Snapshot()
			if before[0].Status != tc.before {
				t.Fatalf("before the first run: %q, want %q", before[0].Status, tc.before)
			}
			if _, ok := PassingSince(ForDeployment(before)); ok != tc.passingFirst {
				t.Fatalf("passing for deployment before the first run = %v, want %v", ok, tc.passingFirst)
			}
			ch.Start()
			c.Advance(0)
			if r := ch.Snapshot()[0]; r.Status != tc.afterFirst || !r.Timestamp.Equal(epoch) {
				t.Fatalf("after the first run: %+v, want %q", r, tc.afterFirst)
			}
			c.Advance(time.Second)
			if r := ch.Snapshot()[0]; r.Status != StatusPassing {
				t.Fatalf("after the second run: %+v", r)
			}
		})
	}
}
