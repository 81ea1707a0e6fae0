package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// The placement path's shortcuts must give the very values of what they
// replace: these compare them bit for bit.

func TestClampFitIsMinOfMax(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), -1, 1, maxFitScore, maxFitScore + 1e-12, maxFitScore - 1e-12, 1e-300, -1e-300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		vals = append(vals, (rng.Float64()-0.25)*30, math.Float64frombits(rng.Uint64()))
	}
	for _, v := range vals {
		want := math.Min(math.Max(v, 0), maxFitScore)
		if got := clampFit(v); math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("clampFit(%v) = %v, want %v", v, got, want)
		}
	}
}

func TestPow10CacheIsPow(t *testing.T) {
	var pc pow10Cache
	rng := rand.New(rand.NewPCG(3, 4))
	var fs []float64
	for range 50000 {
		capacity := 1 + rng.Int64N(100000)
		fs = append(fs, freeFraction(rng.Int64N(capacity+1), capacity), rng.Float64(), math.Copysign(0, -1))
	}
	for range 3 { // misses, hits and evictions
		for _, f := range fs {
			if got, want := pc.pow10(f), math.Pow(10, f); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("pow10(%v) = %v, want %v", f, got, want)
			}
		}
	}
	capacity := structs.ComparableResources{CpuShares: 14000, MemoryMB: 32000}
	for _, alg := range []string{structs.SchedulerAlgorithmBinpack, structs.SchedulerAlgorithmSpread} {
		for range 20000 {
			used := structs.ComparableResources{CpuShares: rng.Int64N(16000), MemoryMB: rng.Int64N(34000)}
			got, want := pc.fitScore(alg, &capacity, &used), fitScoreReference(alg, &capacity, &used)
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s fit score of %+v = %v, want %v", alg, used, got, want)
			}
		}
	}
}

// fitScoreReference is fitScore as it was written before its shortcuts.
func fitScoreReference(algorithm string, capacity, used *structs.ComparableResources) float64 {
	freeCPU := freeFraction(used.CpuShares, capacity.CpuShares)
	freeMem := freeFraction(used.MemoryMB, capacity.MemoryMB)
	total := math.Pow(10, freeCPU) + math.Pow(10, freeMem)
	raw := 20 - total
	if algorithm == structs.SchedulerAlgorithmSpread {
		raw = total - 2
	}
	return math.Min(math.Max(raw, 0), maxFitScore) / maxFitScore
}

func TestNodeCapacityIsComparable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	nodes := []*structs.Node{{}, {ReservedResources: &structs.NodeReservedResources{CpuShares: 1}}}
	for range 1000 {
		n := &structs.Node{NodeResources: &structs.NodeResources{
			CPU:      structs.NodeCPUResources{CpuShares: rng.Int64N(1e5), TotalCpuCores: uint16(rng.IntN(64))},
			MemoryMB: rng.Int64N(1e6), DiskMB: rng.Int64N(1e7),
		}}
		if rng.IntN(2) == 0 {
			n.ReservedResources = &structs.NodeReservedResources{CpuShares: rng.Int64N(1e4), MemoryMB: rng.Int64N(1e4), DiskMB: rng.Int64N(1e4), ReservedPorts: "22"}
		}
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		if got, want := nodeCapacity(n), *n.Comparable(); got != want {
			t.Fatalf("nodeCapacity %+v, want %+v", got, want)
		}
	}
}

// TestKeepTopMatchesSortedInsert checks the value list against the
// pointer list it replaced, on random scores with many ties.
func TestKeepTopMatchesSortedInsert(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		var buf [topScores]option
		top := buf[:0]
		var ref []*option
		for i := range rng.IntN(30) {
			o := option{pos: i, final: float64(rng.IntN(6)) / 4}
			top = keepTop(top, &o)
			ref = keepTopReference(ref, &o)
		}
		if len(top) != len(ref) {
			t.Fatalf("%d options kept, want %d", len(top), len(ref))
		}
		for i := range top {
			if top[i].pos != ref[i].pos {
				t.Fatalf("option %d is #%d, want #%d", i, top[i].pos, ref[i].pos)
			}
		}
	}
}

// keepTopReference is keepTop as it was, over pointers.
func keepTopReference(top []*option, o *option) []*option {
	i := len(top)
	for i > 0 && top[i-1].final < o.final {
		i--
	}
	if i >= topScores {
		return top
	}
	kept := *o
	top = append(top, nil)
	copy(top[i+1:], top[i:])
	top[i] = &kept
	if len(top) > topScores {
		top = top[:topScores]
	}
	return top
}

// TestCountGroupFollowsChanges checks countGroup's remembered answer
// against a recount after every add and remove, for several groups.
func TestCountGroupFollowsChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	u := newNodeUsage(&structs.Node{ID: "n"})
	var live []*structs.Allocation
	recount := func(jobID, group string) int {
		n := 0
		for _, a := range live {
			if a.JobID == jobID && (group == "" || a.TaskGroup == group) {
				n++
			}
		}
		return n
	}
	for i := range 2000 {
		if len(live) > 0 && rng.IntN(3) == 0 {
			k := rng.IntN(len(live))
			u.remove(live[k].ID)
			live = append(live[:k], live[k+1:]...)
		} else {
			a := &structs.Allocation{ID: string(rune('A' + i)), JobID: []string{"j1", "j2"}[rng.IntN(2)], TaskGroup: []string{"a", "b"}[rng.IntN(2)],
				AllocatedResources: &structs.AllocatedResources{}}
			u.add(a)
			live = append(live, a)
		}
		for range 2 {
			job, group := []string{"j1", "j2"}[rng.IntN(2)], []string{"", "a", "b"}[rng.IntN(3)]
			if got, want := u.countGroup(job, group), recount(job, group); got != want {
				t.Fatalf("step %d: countGroup(%s, %q) = %d, want %d", i, job, group, got, want)
			}
		}
	}
}

// reversedScan is a State whose usage scan breaks its order promise.
type reversedScan struct{ State }

func (r reversedScan) EachNodeUsage(ws memdb.WatchSet, fn func(*structs.NodeUsage) bool) error {
	var all []*structs.NodeUsage
	if err := r.State.(usageScanner).EachNodeUsage(ws, func(u *structs.NodeUsage) bool { all = append(all, u); return true }); err != nil {
		return err
	}
	for i := len(all) - 1; i >= 0; i-- {
		if !fn(all[i]) {
			break
		}
	}
	return nil
}

// TestUsageScanMatchesPointReads checks that the usage an eval computes
// is the same whether the stored summaries come from the scan, from one
// read per node, or from a scan out of order (which must fall back to
// point reads rather than miss summaries).
func TestUsageScanMatchesPointReads(t *testing.T) {
	h := newHarness(t)
	var nodes []*structs.Node
	for i := range 40 {
		n := mockNode()
		n.ID = fmt.Sprintf("scan-%02d", (i*17)%40)
		nodes = append(nodes, h.upsertNode(n))
	}
	job := h.upsertJob(mockJob("scan", 1))
	var allocs []*structs.Allocation
	for i, n := range nodes {
		for k := range i % 3 {
			a := mock.Alloc(fmt.Sprintf("a-%02d-%d", i, k), job, n.ID)
			a.Name = structs.AllocName(job.ID, "web", uint(i*3+k))
			allocs = append(allocs, a)
		}
	}
	h.upsertAllocs(allocs...)
	snap := h.store.Snapshot()
	list, _, err := snap.NodeSet(nil)
	h.must(err)
	usages := func(st State, scan bool) []structs.ComparableResources {
		ctx := newEvalContext(st, &structs.Evaluation{ID: "e"}, job, &structs.Plan{}, nil, t0)
		ctx.setNodes(list, nil)
		if scan {
			ctx.expectRanks(len(list))
		}
		var out []structs.ComparableResources
		for p, n := range list {
			u, err := ctx.nodeUsageAt(p, n)
			h.must(err)
			out = append(out, u.used)
		}
		if scan && st == State(snap) && !ctx.storedScanned {
			t.Fatal("the snapshot's usages were not scanned")
		}
		if _, reversed := st.(reversedScan); reversed && ctx.storedScanned {
			t.Fatal("an out-of-order scan was used")
		}
		return out
	}
	want := usages(snap, false)
	if !slices.ContainsFunc(want, func(c structs.ComparableResources) bool { return c.CpuShares > 0 }) {
		t.Fatal("no node has stored usage")
	}
	for _, got := range [][]structs.ComparableResources{usages(snap, true), usages(reversedScan{snap}, true)} {
		if !slices.Equal(got, want) {
			t.Fatalf("usages %v, want %v", got, want)
		}
	}
}
