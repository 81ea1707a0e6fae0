package scheduler

import (
	"github.com/drover-project/drover/internal/structs"
)

// spreadScorer scores nodes by how far the group's allocs on the node's
// value of each spread attribute are below their desired count, from 1
// (none placed yet) down to -1 (at or over twice the target). With targets,
// a value's desired count is its percentage of the group count; values not
// listed share the remaining percentage. Without targets the count is
// divided evenly over the values seen on the feasible nodes.
type spreadScorer struct {
	spreads     []*spreadState
	totalWeight float64
}

type spreadState struct {
	attr    string
	weight  float64
	counts  map[string]int     // value -> proposed allocs of the group
	desired map[string]float64 // targeted values; nil for an even spread
	other   float64            // desired count shared by untargeted values
	even    float64            // desired count per value of an even spread
	// byPos remembers each node's value of attr by its position in the
	// context's node list (usePositions): 0 not looked up yet, -1 none,
	// k > 0 values[k-1]. Resolving the attribute was most of a spread
	// eval's time, for nodes ranked again and again.
	byPos  []int32
	values []string
	index  map[string]int32
}

// usePositions lets the scorer remember node values by position in a
// node list of n nodes.
func (s *spreadScorer) usePositions(n int) {
	for _, st := range s.spreads {
		st.byPos, st.index = make([]int32, n), map[string]int32{}
	}
}

// valueAt is resolveTarget(st.attr, n), remembered for the node at
// position p (-1: not known, resolved every time).
func (st *spreadState) valueAt(n *structs.Node, p int) (string, bool) {
	if p < 0 || st.byPos == nil {
		return resolveTarget(st.attr, n)
	}
	switch k := st.byPos[p]; {
	case k > 0:
		return st.values[k-1], true
	case k < 0:
		return "", false
	}
	v, ok := resolveTarget(st.attr, n)
	if !ok {
		st.byPos[p] = -1
		return "", false
	}
	k, seen := st.index[v]
	if !seen {
		st.values = append(st.values, v)
		k = int32(len(st.values))
		st.index[v] = k
	}
	st.byPos[p] = k
	return v, true
}

func newSpreadScorer(job *structs.Job, tg *structs.TaskGroup) *spreadScorer {
	s := &spreadScorer{}
	for _, sp := range append(append([]*structs.Spread{}, job.Spreads...), tg.Spreads...) {
		st := &spreadState{attr: sp.Attribute, weight: float64(sp.Weight), counts: map[string]int{}}
		if len(sp.SpreadTarget) > 0 {
			st.desired = map[string]float64{}
			rest := 100.0
			for _, t := range sp.SpreadTarget {
				st.desired[t.Value] = float64(tg.Count) * float64(t.Percent) / 100
				rest -= float64(t.Percent)
			}
			st.other = float64(tg.Count) * max(rest, 0) / 100
		}
		s.spreads = append(s.spreads, st)
		s.totalWeight += st.weight
	}
	return s
}

func (s *spreadScorer) active() bool { return len(s.spreads) > 0 }

// needsValues reports whether an even spread needs the set of values.
func (s *spreadScorer) needsValues() bool {
	for _, st := range s.spreads {
		if st.desired == nil {
			return true
		}
	}
	return false
}

// setValues divides the count evenly over the values the feasible nodes
// have, for spreads without targets.
func (s *spreadScorer) setValues(count int, nodes []*structs.Node) {
	for _, st := range s.spreads {
		if st.desired != nil {
			continue
		}
		values := map[string]bool{}
		for _, n := range nodes {
			if v, ok := resolveTarget(st.attr, n); ok {
				values[v] = true
			}
		}
		if len(values) > 0 {
			st.even = float64(count) / float64(len(values))
		}
	}
}

// placed counts a proposed alloc of the group on node n.
func (s *spreadScorer) placed(n *structs.Node, delta int) {
	for _, st := range s.spreads {
		if v, ok := resolveTarget(st.attr, n); ok {
			st.counts[v] += delta
		}
	}
}

func (s *spreadScorer) score(n *structs.Node) float64 { return s.scoreAt(n, -1) }

// scoreAt is score of the node at position p of the context's node list
// (-1: not known).
func (s *spreadScorer) scoreAt(n *structs.Node, p int) float64 {
	if s.totalWeight == 0 {
		return 0
	}
	var sum float64
	for _, st := range s.spreads {
		sum += st.weight * st.boost(n, p)
	}
	return sum / s.totalWeight
}

func (st *spreadState) boost(n *structs.Node, p int) float64 {
	v, ok := st.valueAt(n, p)
	if !ok {
		return -1
	}
	used, desired := float64(st.counts[v]), st.even
	if st.desired != nil {
		var targeted bool
		if desired, targeted = st.desired[v]; !targeted {
			desired, used = st.other, float64(st.untargetedCount())
		}
	}
	if desired <= 0 {
		return -1
	}
	return min(max((desired-used)/desired, -1), 1)
}

func (st *spreadState) untargetedCount() int {
	n := 0
	for v, c := range st.counts {
		if _, ok := st.desired[v]; !ok {
			n += c
		}
	}
	return n
}
