package taskrunner

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/clock"
)

// settle is wait { min max }: quiet for min renders; changes arriving
// within min push the render back, but never past max after the first.
func TestSettle_WaitMinMax(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name       string
		min, max   time.Duration
		changesFor time.Duration // changes arrive every second until then
		want       time.Duration // when settle returns
	}{
		{"no wait renders at once", 0, 0, time.Hour, 0},
		{"quiet after the first change", 2 * time.Second, 10 * time.Second, 0, 2 * time.Second},
		{"changes push the render back", 2 * time.Second, 10 * time.Second, 3 * time.Second, 5 * time.Second},
		{"a stream of changes renders at max", 2 * time.Second, 5 * time.Second, time.Hour, 5 * time.Second},
		{"max below min is four times min", 2 * time.Second, 0, time.Hour, 8 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewManual(start)
			// changeWithin(d): the next change comes one second after the
			// current time while changes keep coming, else none within d.
			changeWithin := func(d time.Duration) (bool, bool) {
				next := clk.Now().Add(time.Second)
				if next.Sub(start) <= tc.changesFor && time.Second <= d {
					clk.Advance(time.Second)
					return true, true
				}
				clk.Advance(d)
				return false, true
			}
			if !settle(clk, tc.min, tc.max, changeWithin) {
				t.Fatal("settle gave up")
			}
			if got := clk.Now().Sub(start); got != tc.want {
				t.Fatalf("rendered at +%v, want +%v", got, tc.want)
			}
		})
	}
}

func TestSettle_StopsWithTheRunner(t *testing.T) {
	clk := clock.NewManual(time.Unix(0, 0))
	if settle(clk, time.Second, time.Minute, func(time.Duration) (bool, bool) { return false, false }) {
		t.Fatal("settle went on after the runner ended")
	}
}
