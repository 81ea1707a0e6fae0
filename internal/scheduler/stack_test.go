package scheduler

import (
	"slices"
	"sort"
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

// TestSelect_RecentNodesRankedBesideTheSample checks that each placement
// ranks the last recentNodes nodes the group was placed on besides the
// sample of limit nodes (so packing can return to them), once each.
func TestSelect_RecentNodesRankedBesideTheSample(t *testing.T) {
	h := newHarness(t)
	nodes(h, 20) // a sample of ceil(log2 20) = 5 nodes
	h.register(mockJob("web", 4))
	placed, _ := planned(h.plans[0])
	sort.Slice(placed, func(i, j int) bool { return placed[i].Name < placed[j].Name })
	var got []int
	for _, a := range placed {
		got = append(got, a.Metrics.NodesEvaluated)
	}
	// No recent node, then one, then two, and never more than two.
	if want := []int{5, 6, 7, 7}; !slices.Equal(got, want) {
		t.Fatalf("nodes evaluated per placement %v, want %v", got, want)
	}
}

// TestSelect_ZeroScoreCountsTowardTheSample checks that only scores below
// zero are passed over: with the spread algorithm a placement that fills
// a node exactly scores exactly 0 there, and such a node counts toward
// the sample like any other.
func TestSelect_ZeroScoreCountsTowardTheSample(t *testing.T) {
	h := newHarness(t)
	cfg := structs.DefaultSchedulerConfiguration()
	cfg.SchedulerAlgorithm = structs.SchedulerAlgorithmSpread
	h.must(h.store.SchedulerSetConfig(h.next(), cfg))
	nodes(h, 20) // a sample of ceil(log2 20) = 5 nodes
	j := mockJob("web", 1)
	// Exactly a whole mock node.
	j.TaskGroups[0].Tasks[0].Resources.CPU, j.TaskGroups[0].Tasks[0].Resources.MemoryMB = 4000, 8192
	job, _ := h.register(j)
	live := h.liveAllocs(job)
	if len(live) != 1 {
		t.Fatalf("%d allocs", len(live))
	}
	m := live[0].Metrics
	for _, s := range m.ScoreMetaData {
		if s.NormScore != 0 {
			t.Fatalf("node %s scored %v, want exactly 0", s.NodeID, s.NormScore)
		}
	}
	if m.NodesEvaluated != 5 {
		t.Fatalf("evaluated %d nodes, want the sample of 5", m.NodesEvaluated)
	}
}
