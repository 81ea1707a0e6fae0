package scheduler

import (
	"math"

	"github.com/drover-project/drover/internal/structs"
)

// Score components, named as in AllocMetric.ScoreMetaData.
const (
	ScoreBinpack           = "binpack"
	ScoreJobAntiAffinity   = "job-anti-affinity"
	ScoreReschedulePenalty = "node-reschedule-penalty"
	ScoreNodeAffinity      = "node-affinity"
	ScoreSpread            = "allocation-spread"
)

type scoreKind int

const (
	scoreFit scoreKind = iota
	scoreAntiAffinity
	scorePenalty
	scoreAffinity
	scoreSpread
	numScores
)

var scoreNames = [numScores]string{ScoreBinpack, ScoreJobAntiAffinity, ScoreReschedulePenalty, ScoreNodeAffinity, ScoreSpread}

// scores holds a candidate's components without a map, since most
// candidates are scored and thrown away; maps are made only for the few
// recorded in the metrics.
type scores struct {
	v   [numScores]float64
	set [numScores]bool
}

func (s *scores) add(k scoreKind, v float64) { s.v[k], s.set[k] = v, true }

// mean is the final score: the mean of the components that apply. A
// component applies to a placement, not to a node (anti-affinity scores 0
// on a node without collisions rather than being left out), so every
// candidate of a placement is averaged over the same components and their
// scores are comparable.
func (s *scores) mean() float64 {
	sum, n := 0.0, 0
	for k := range numScores {
		if s.set[k] {
			sum += s.v[k]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// scoreKey identifies a set of components by their exact values.
type scoreKey struct {
	bits [numScores]uint64 // math.Float64bits, so 0 and -0 differ
	set  [numScores]bool
}

// maxSharedScores bounds the maps an eval shares (sharedMap).
const maxSharedScores = 1024

// sharedMap is asMap, giving options with the same components the same
// map: nodes alike in shape and load score alike, and an eval records
// five maps per placement. The maps go into the plan's metrics, which no
// one modifies (state objects are immutable), so sharing one is not seen.
func (c *evalContext) sharedMap(s *scores) map[string]float64 {
	var k scoreKey
	for i := range numScores {
		k.bits[i], k.set[i] = math.Float64bits(s.v[i]), s.set[i]
	}
	if m, ok := c.scoreMaps[k]; ok {
		return m
	}
	m := s.asMap()
	if c.scoreMaps == nil {
		c.scoreMaps = map[scoreKey]map[string]float64{}
	}
	if len(c.scoreMaps) < maxSharedScores {
		c.scoreMaps[k] = m
	}
	return m
}

func (s *scores) asMap() map[string]float64 {
	n := 0
	for _, set := range s.set {
		if set {
			n++
		}
	}
	m := make(map[string]float64, n)
	for k := range numScores {
		if s.set[k] {
			m[scoreNames[k]] = s.v[k]
		}
	}
	return m
}

// maxFitScore is the best raw fit score: 20 minus the floor of 10^free
// summed over the two dimensions (2, when the node is full).
const maxFitScore = 18.0

// fitScore scores how full the node would be after the placement, from
// its free CPU and memory fractions. Binpack rewards fuller nodes (raw score
// 20 - (10^freeCPU + 10^freeMem)); spread rewards emptier ones (the sum
// minus 2). Both are normalised to 0..1.
func fitScore(algorithm string, capacity, used *structs.ComparableResources) float64 {
	return (*pow10Cache)(nil).fitScore(algorithm, capacity, used)
}

// fitScore is the package's fitScore with the powers of ten remembered.
func (pc *pow10Cache) fitScore(algorithm string, capacity, used *structs.ComparableResources) float64 {
	freeCPU := freeFraction(used.CpuShares, capacity.CpuShares)
	freeMem := freeFraction(used.MemoryMB, capacity.MemoryMB)
	total := pc.pow10(freeCPU) + pc.pow10(freeMem)
	raw := 20 - total
	if algorithm == structs.SchedulerAlgorithmSpread {
		raw = total - 2
	}
	return clampFit(raw) / maxFitScore
}

// clampFit is math.Min(math.Max(raw, 0), maxFitScore) without the calls
// (they were a few percent of a large eval): the same value for every
// input, NaN and signed zeros included (a zero or below gives +0).
func clampFit(raw float64) float64 {
	switch {
	case raw != raw:
		return raw // NaN stays NaN, as through Max and Min
	case raw > maxFitScore:
		return maxFitScore
	case raw > 0:
		return raw
	}
	return 0
}

// pow10Cache remembers math.Pow(10, f) for the free fractions an eval
// scores with: a cluster's nodes have a few shapes and a job's allocs a
// few sizes, so the same fractions come back for most of the thousands of
// nodes ranked, and the power was a tenth of a large eval's time. It is
// direct-mapped: a slot holds the last fraction hashed to it, and a miss
// computes the power as before, so every answer is math.Pow's own, bit
// for bit. A nil cache computes every time.
type pow10Cache struct {
	key [pow10Slots]uint64 // math.Float64bits of the fraction
	val [pow10Slots]float64
	set [pow10Slots]bool
}

const pow10Slots = 256

func (pc *pow10Cache) pow10(f float64) float64 {
	if pc == nil {
		return math.Pow(10, f)
	}
	b := math.Float64bits(f)
	i := (b * 0x9e3779b97f4a7c15) >> 56 // the top 8 bits: pow10Slots
	if pc.set[i] && pc.key[i] == b {
		return pc.val[i]
	}
	v := math.Pow(10, f)
	pc.key[i], pc.val[i], pc.set[i] = b, v, true
	return v
}

// powers returns the eval's cache of powers of ten, made on first use.
func (c *evalContext) powers() *pow10Cache {
	if c.pow10 == nil {
		c.pow10 = &pow10Cache{}
	}
	return c.pow10
}

func freeFraction(used, capacity int64) float64 {
	if capacity <= 0 {
		return 0
	}
	return 1 - float64(used)/float64(capacity)
}

// antiAffinityScore penalises nodes that already run allocs of the same
// job and group, more so the larger the share of the group they would hold.
func antiAffinityScore(collisions, count int) float64 {
	if collisions == 0 || count <= 0 {
		return 0
	}
	return -float64(collisions+1) / float64(count)
}

// affinityScorer scores a node by the weights of the affinities it
// matches, normalised by the sum of absolute weights to -1..1.
type affinityScorer struct {
	ctx        *evalContext
	affinities []*structs.Affinity
	cacheable  bool
	byClass    map[string]float64
}

func newAffinityScorer(ctx *evalContext, job *structs.Job, tg *structs.TaskGroup) *affinityScorer {
	a := &affinityScorer{ctx: ctx, cacheable: true, byClass: map[string]float64{}}
	a.affinities = append(a.affinities, job.Affinities...)
	a.affinities = append(a.affinities, tg.Affinities...)
	for _, t := range tg.Tasks {
		a.affinities = append(a.affinities, t.Affinities...)
	}
	for _, af := range a.affinities {
		if escapesClass(af.LTarget) || escapesClass(af.RTarget) {
			a.cacheable = false
		}
	}
	return a
}

func (a *affinityScorer) active() bool { return len(a.affinities) > 0 }

func (a *affinityScorer) score(n *structs.Node) float64 {
	if !a.cacheable {
		return a.compute(n)
	}
	class := a.ctx.classOf(n)
	if s, ok := a.byClass[class]; ok {
		return s
	}
	s := a.compute(n)
	a.byClass[class] = s
	return s
}

func (a *affinityScorer) compute(n *structs.Node) float64 {
	var total, matched float64
	for _, af := range a.affinities {
		w := float64(af.Weight)
		total += math.Abs(w)
		l, lok := resolveTarget(af.LTarget, n)
		r, rok := resolveTarget(af.RTarget, n)
		if a.ctx.checkOperator(af.Operand, l, lok, r, rok) {
			matched += w
		}
	}
	if total == 0 {
		return 0
	}
	return matched / total
}
