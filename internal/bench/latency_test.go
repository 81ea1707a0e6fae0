package bench

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func TestPhasesOf(t *testing.T) {
	step := func(status string, at int64) *structs.EvalTimelineEntry {
		return &structs.EvalTimelineEntry{Status: status, Time: at}
	}
	const ms = int64(time.Millisecond)
	for _, tc := range []struct {
		name               string
		steps              []*structs.EvalTimelineEntry
		wait, sched, apply time.Duration
		ok                 bool
	}{
		{"never scheduled", []*structs.EvalTimelineEntry{step("pending", 0), step("complete", 5*ms)}, 0, 0, 0, false},
		{"one pass", []*structs.EvalTimelineEntry{
			step("pending", 0), step("scheduling", 10*ms), step("applying", 12*ms), step("complete", 15*ms),
		}, 10 * time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, true},
		{"plan refreshed", []*structs.EvalTimelineEntry{
			step("pending", 0), step("scheduling", 4*ms), step("applying", 5*ms), step("scheduling", 7*ms), step("applying", 8*ms),
		}, 4 * time.Millisecond, 2 * time.Millisecond, 2*time.Millisecond + 7*time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &structs.Evaluation{CreateTime: 0, ModifyTime: 15 * ms, Timeline: tc.steps}
			wait, sched, apply, ok := phasesOf(e)
			if wait != tc.wait || sched != tc.sched || apply != tc.apply || ok != tc.ok {
				t.Errorf("got %v %v %v %v, want %v %v %v %v", wait, sched, apply, ok, tc.wait, tc.sched, tc.apply, tc.ok)
			}
		})
	}
}
