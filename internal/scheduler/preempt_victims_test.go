package scheduler

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// cpuVictim is a candidate freeing cpu MHz, of the given priority.
func cpuVictim(id string, prio int, cpu int64) *victim {
	return &victim{alloc: &structs.Allocation{ID: id}, priority: prio, frees: structs.ComparableResources{CpuShares: cpu}}
}

func victimIDs(vs []*victim) string {
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.alloc.ID
	}
	slices.Sort(ids)
	return strings.Join(ids, ",")
}

func TestForEachCombination(t *testing.T) {
	cases := []struct {
		n, k int
		want string
	}{
		{3, 1, "0 1 2"},
		{4, 2, "01 02 03 12 13 23"},
		{4, 3, "012 013 023 123"},
		{3, 3, "012"},
	}
	for _, tc := range cases {
		var got []string
		forEachCombination(tc.n, tc.k, func(idx []int) bool {
			s := ""
			for _, i := range idx {
				s += fmt.Sprint(i)
			}
			got = append(got, s)
			return true
		})
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%d choose %d: %v, want %s", tc.n, tc.k, got, tc.want)
		}
	}
	calls := 0
	forEachCombination(5, 2, func([]int) bool { calls++; return calls < 3 })
	if calls != 3 {
		t.Fatalf("went on after fn returned false: %d calls", calls)
	}
}

func TestDistance(t *testing.T) {
	cases := []struct {
		name        string
		freed, need structs.ComparableResources
		want        float64
	}{
		{"exact", structs.ComparableResources{CpuShares: 1000}, structs.ComparableResources{CpuShares: 1000}, 0},
		{"double", structs.ComparableResources{CpuShares: 2000}, structs.ComparableResources{CpuShares: 1000}, 1},
		{"half", structs.ComparableResources{CpuShares: 500}, structs.ComparableResources{CpuShares: 1000}, 0.5},
		{"dimensions not needed are ignored", structs.ComparableResources{CpuShares: 1000, MemoryMB: 9000}, structs.ComparableResources{CpuShares: 1000}, 0},
		{"every dimension", structs.ComparableResources{CpuShares: 3000, Cores: 3, MemoryMB: 300, DiskMB: 200},
			structs.ComparableResources{CpuShares: 1000, Cores: 1, MemoryMB: 100, DiskMB: 100}, math.Sqrt(13)},
	}
	for _, tc := range cases {
		if got := distance(tc.freed, tc.need); !near(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPositive(t *testing.T) {
	got := positive(structs.ComparableResources{CpuShares: -1, Cores: -2, MemoryMB: 5, DiskMB: -4})
	if got != (structs.ComparableResources{MemoryMB: 5}) {
		t.Fatalf("%+v", got)
	}
	got = positive(structs.ComparableResources{CpuShares: 1, Cores: 2, DiskMB: 4})
	if got != (structs.ComparableResources{CpuShares: 1, Cores: 2, DiskMB: 4}) {
		t.Fatalf("%+v", got)
	}
}

// TestChooseVictims_ExactUpToMaxExactVictims checks that a set of exactly
// MaxExactVictims allocs is found by the exhaustive search: four of
// priority 30 rather than the eight of priority 10 a greedy cover takes.
func TestChooseVictims_ExactUpToMaxExactVictims(t *testing.T) {
	var cands []*victim
	for i := range 8 {
		cands = append(cands, cpuVictim(fmt.Sprintf("low%d", i), 10, 500))
	}
	for i := range 4 {
		cands = append(cands, cpuVictim(fmt.Sprintf("mid%d", i), 30, 1000))
	}
	got, ok := chooseVictims(cands, structs.ComparableResources{CpuShares: 4000})
	if !ok || victimIDs(got) != "mid0,mid1,mid2,mid3" {
		t.Fatalf("victims %s (ok %v)", victimIDs(got), ok)
	}
	if got, ok := chooseVictims(cands, structs.ComparableResources{}); !ok || got != nil {
		t.Fatalf("nothing needed, yet %s", victimIDs(got))
	}
}

// TestExactVictims_Budget checks that the search stops after
// VictimSearchBudget sets: with 20 candidates, 1350 sets of up to three
// are checked, which leaves 2746 sets of four. The only covering set is
// put at the last position within the budget, then at the first beyond.
func TestExactVictims_Budget(t *testing.T) {
	cases := []struct {
		name   string
		bigAt  []int // the indexes of the only covering set
		wantOK bool
	}{
		{"last set within the budget", []int{3, 7, 8, 15}, true},
		{"first set beyond the budget", []int{3, 7, 8, 16}, false},
	}
	for _, tc := range cases {
		var cands []*victim
		for i := range 20 {
			cpu := int64(1)
			if slices.Contains(tc.bigAt, i) {
				cpu = 1000
			}
			cands = append(cands, cpuVictim(fmt.Sprintf("v%02d", i), 10, cpu))
		}
		got, ok := exactVictims(cands, structs.ComparableResources{CpuShares: 4000})
		if ok != tc.wantOK || (ok && len(got) != 4) {
			t.Errorf("%s: %s (ok %v)", tc.name, victimIDs(got), ok)
		}
	}
}

// TestExactVictims_BudgetSpentBeforeLargerSets checks that once the
// budget is spent on sets of three (30 candidates: 4525 sets of up to
// three), sets of four are not tried even when the first one covers.
func TestExactVictims_BudgetSpentBeforeLargerSets(t *testing.T) {
	var cands []*victim
	for i := range 30 {
		cpu := int64(1)
		if i < 4 {
			cpu = 1000
		}
		cands = append(cands, cpuVictim(fmt.Sprintf("v%02d", i), 10, cpu))
	}
	if got, ok := exactVictims(cands, structs.ComparableResources{CpuShares: 4000}); ok {
		t.Fatalf("found %s after the budget was spent", victimIDs(got))
	}
	if got, ok := exactVictims(cands[:12], structs.ComparableResources{CpuShares: 4000}); !ok || victimIDs(got) != "v00,v01,v02,v03" {
		t.Fatalf("within the budget: %s (ok %v)", victimIDs(got), ok)
	}
}

// TestExactVictims_BestOfASize checks the ranking among sets of the
// smallest size: lowest highest priority, then lowest total, then the
// closest to the need.
func TestExactVictims_BestOfASize(t *testing.T) {
	cases := []struct {
		name  string
		cands []*victim
		need  int64
		want  string
	}{
		{"lowest highest priority", []*victim{cpuVictim("a", 30, 1000), cpuVictim("b", 10, 500), cpuVictim("c", 20, 600), cpuVictim("d", 25, 600)}, 1000, "a"},
		{"pairs: lowest highest priority", []*victim{cpuVictim("a", 30, 600), cpuVictim("b", 10, 500), cpuVictim("c", 20, 500), cpuVictim("d", 25, 600)}, 1000, "b,c"},
		{"pairs: lowest total priority", []*victim{cpuVictim("a", 20, 600), cpuVictim("b", 10, 400), cpuVictim("c", 20, 500), cpuVictim("d", 15, 500)}, 1000, "a,b"},
		{"closest to the need", []*victim{cpuVictim("a", 10, 3000), cpuVictim("b", 10, 1200), cpuVictim("c", 10, 1100), cpuVictim("d", 10, 2000)}, 1000, "c"},
	}
	for _, tc := range cases {
		got, ok := exactVictims(tc.cands, structs.ComparableResources{CpuShares: tc.need})
		if !ok || victimIDs(got) != tc.want {
			t.Errorf("%s: %s (ok %v), want %s", tc.name, victimIDs(got), ok, tc.want)
		}
	}
}

// TestGreedyVictims checks the greedy cover: lowest priority first, within
// it the candidate closest to what is missing (the first on a tie), and
// no victim the others make up for.
func TestGreedyVictims(t *testing.T) {
	cases := []struct {
		name  string
		cands []*victim // sorted by priority
		need  int64
		want  string
	}{
		{"closest within the lowest priority", []*victim{cpuVictim("a", 10, 300), cpuVictim("b", 10, 1000), cpuVictim("c", 10, 5000), cpuVictim("d", 20, 1000)}, 1000, "b"},
		{"closest, not first, of the lowest priority", []*victim{cpuVictim("a", 10, 600), cpuVictim("b", 10, 500), cpuVictim("c", 10, 1000)}, 1000, "c"},
		{"first of equally close", []*victim{cpuVictim("a", 10, 1000), cpuVictim("b", 10, 1000)}, 1000, "a"},
		{"lowest priority before closer higher ones", []*victim{cpuVictim("a", 10, 400), cpuVictim("b", 10, 400), cpuVictim("c", 20, 1000)}, 800, "a,b"},
		{"higher priority once the lower run out", []*victim{cpuVictim("a", 10, 400), cpuVictim("b", 20, 300), cpuVictim("c", 20, 600)}, 1000, "a,c"},
		{"an early pick made unnecessary is dropped", []*victim{cpuVictim("a", 10, 200), cpuVictim("b", 20, 1000)}, 1000, "b"},
	}
	for _, tc := range cases {
		if got := greedyVictims(tc.cands, structs.ComparableResources{CpuShares: tc.need}); victimIDs(got) != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, victimIDs(got), tc.want)
		}
	}
}

func TestPrune(t *testing.T) {
	cases := []struct {
		name   string
		picked []*victim
		need   int64
		want   string
	}{
		{"last unnecessary", []*victim{cpuVictim("big", 10, 2000), cpuVictim("small", 20, 500)}, 1500, "big"},
		{"first unnecessary", []*victim{cpuVictim("small", 10, 500), cpuVictim("big", 20, 2000)}, 1500, "big"},
		{"all needed", []*victim{cpuVictim("a", 10, 500), cpuVictim("b", 20, 1000)}, 1500, "a,b"},
		{"latest dropped first", []*victim{cpuVictim("a", 10, 1000), cpuVictim("b", 20, 1000)}, 1000, "a"},
	}
	for _, tc := range cases {
		if got := prune(tc.picked, structs.ComparableResources{CpuShares: tc.need}); victimIDs(got) != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, victimIDs(got), tc.want)
		}
	}
}

// TestVictimSet_Ranking checks what a victim set is ranked by.
func TestVictimSet_Ranking(t *testing.T) {
	need := structs.ComparableResources{CpuShares: 1000}
	set := newVictimSet([]*victim{cpuVictim("a", 20, 500), cpuVictim("b", 30, 1000)}, need)
	if set.maxPrio != 30 || set.sumPrio != 50 || !near(set.distance, 0.5) {
		t.Fatalf("set %+v", set)
	}
	cases := []struct {
		name string
		a, b *victimSet
		want int
	}{
		{"fewer first", &victimSet{victims: make([]*victim, 1), maxPrio: 50}, &victimSet{victims: make([]*victim, 2)}, -1},
		{"lower max priority first", &victimSet{victims: make([]*victim, 2), maxPrio: 20, sumPrio: 40}, &victimSet{victims: make([]*victim, 2), maxPrio: 30, sumPrio: 31}, -1},
		{"lower total first", &victimSet{victims: make([]*victim, 2), maxPrio: 30, sumPrio: 50}, &victimSet{victims: make([]*victim, 2), maxPrio: 30, sumPrio: 40}, 1},
		{"closer first", &victimSet{victims: make([]*victim, 1), distance: 0.1}, &victimSet{victims: make([]*victim, 1), distance: 0.2}, -1},
		{"equal", &victimSet{victims: make([]*victim, 1)}, &victimSet{victims: make([]*victim, 1)}, 0},
	}
	for _, tc := range cases {
		if got := tc.a.compare(tc.b); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestPreemptOption_Better checks the ranking across nodes: evictions
// first, then the normal score, then the distance of the victims.
func TestPreemptOption_Better(t *testing.T) {
	po := func(n int, final, dist float64) *preemptOption {
		return &preemptOption{opt: option{final: final}, victims: &victimSet{victims: make([]*victim, n), maxPrio: 10, sumPrio: 10 * n, distance: dist}}
	}
	cases := []struct {
		name string
		a, b *preemptOption
		want bool
	}{
		{"fewer evictions despite a worse score", po(1, 0.1, 1), po(2, 0.9, 0), true},
		{"more evictions", po(2, 0.9, 0), po(1, 0.1, 1), false},
		{"better score", po(1, 0.6, 1), po(1, 0.5, 0), true},
		{"worse score", po(1, 0.5, 0), po(1, 0.6, 1), false},
		{"closer victims on equal scores", po(1, 0.5, 0.1), po(1, 0.5, 0.2), true},
		{"farther victims on equal scores", po(1, 0.5, 0.2), po(1, 0.5, 0.1), false},
		{"equal", po(1, 0.5, 0.1), po(1, 0.5, 0.1), false},
	}
	for _, tc := range cases {
		if got := tc.a.better(tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
