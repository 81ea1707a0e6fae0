package scheduler

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// TestSelect_SampleSkipsAFewNegativeScores checks how far the node sample
// walks: nodes that score below zero are passed over (not counted toward
// the limit) only maxSkip times, then count like any other.
func TestSelect_SampleSkipsAFewNegativeScores(t *testing.T) {
	cases := []struct {
		name   string
		weight int8
		want   int
	}{
		{"every node scores below zero", -100, PreferenceSamplingLimit + maxSkip},
		{"every node scores above zero", 100, PreferenceSamplingLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			nodes(h, PreferenceSamplingLimit+10)
			j := mockJob("web", 1)
			// An affinity every node matches: with a negative weight each
			// node's score is below zero. Affinities raise the sample to
			// PreferenceSamplingLimit.
			j.Affinities = []*structs.Affinity{{LTarget: "${node.datacenter}", RTarget: "dc1", Operand: "=", Weight: tc.weight}}
			job, _ := h.register(j)
			live := h.liveAllocs(job)
			if len(live) != 1 {
				t.Fatalf("%d allocs", len(live))
			}
			if got := live[0].Metrics.NodesEvaluated; got != tc.want {
				t.Fatalf("evaluated %d nodes, want %d", got, tc.want)
			}
		})
	}
}
