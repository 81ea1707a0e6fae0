package sim

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/server/insight"
	"github.com/drover-project/drover/internal/structs"
)

// A what-if drain's predicted moves are what the real drain then does on
// the same state: the same allocs move, to the same nodes, and the same
// groups stay unplaced.
func TestWhatIf_DrainPredictsTheRealDrain(t *testing.T) {
	for _, tc := range []struct {
		seed     int64
		deadline time.Duration
	}{{1, 0}, {2, 0}, {3, 10 * time.Minute}, {4, 10 * time.Minute}} {
		seed := tc.seed
		t.Run(fmt.Sprintf("seed %d deadline %s", seed, tc.deadline), func(t *testing.T) {
			s, err := New(seed, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// a runs web and cache alone; then b and c join and take the rest.
			steps := []struct {
				nodes []NodeSpec
				jobs  []JobSpec
			}{
				{[]NodeSpec{{Name: "a", CPU: 8000, MemoryMB: 16384}}, []JobSpec{
					{Name: "web", Count: 10, CPU: 300, MemoryMB: 512},
					{Name: "cache", Count: 2, CPU: 200, MemoryMB: 1000},
				}},
				{[]NodeSpec{{Name: "b", CPU: 5000, MemoryMB: 8192}, {Name: "c", CPU: 3000, MemoryMB: 12288}}, []JobSpec{
					{Name: "api", Count: 3, CPU: 500, MemoryMB: 900, DistinctHosts: true},
					{Name: "big", Count: 2, CPU: 1500, MemoryMB: 2500},
					{Name: "agent", Type: structs.JobTypeSystem, CPU: 50, MemoryMB: 64},
				}},
			}
			for _, st := range steps {
				for _, n := range st.nodes {
					if _, err := s.AddNode(n); err != nil {
						t.Fatal(err)
					}
				}
				for _, j := range st.jobs {
					if err := s.RegisterJob(j); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := realMoves(t, s, nil); got != "" {
				t.Fatalf("the scenario should place everything before the drain: %s", got)
			}
			a, _ := s.node("a")
			before, err := s.srv.State().AllocsByNodeTerminal(nil, a.ID, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(before) < 3 {
				t.Fatalf("only %d allocs on a", len(before))
			}
			predicted, err := insight.WhatIf(s.srv.State().Snapshot(), insight.Deps{Now: s.Now, Seed: 1},
				&structs.WhatIfRequest{Kind: insight.WhatIfDrain, Nodes: []string{"a"}, Deadline: tc.deadline})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.DrainWithDeadline("a", tc.deadline); err != nil {
				t.Fatal(err)
			}
			if tc.deadline > 0 {
				if err := s.AdvanceTime(tc.deadline + time.Minute); err != nil {
					t.Fatal(err)
				}
			}
			want := predictedMoves(predicted)
			got := realMoves(t, s, before)
			t.Logf("predicted (%d evals):\n%s", predicted.Evals, want)
			for _, u := range predicted.Unplaced {
				t.Logf("unplaced %s.%s: %s", u.JobID, u.Group, u.Reason)
			}
			if got != want {
				t.Fatalf("the real drain did:\n%s\nthe what-if predicted:\n%s", got, want)
			}
			if len(predicted.Moves) == 0 || len(predicted.Unplaced) == 0 {
				t.Fatalf("the scenario should both move and leave allocs unplaced: %+v", predicted)
			}
		})
	}
}

// predictedMoves is the what-if as "alloc: from -> to" lines (to "-": not
// replaced) plus the unplaced groups.
func predictedMoves(r *structs.WhatIfResponse) string {
	var lines []string
	for _, m := range r.Moves {
		lines = append(lines, fmt.Sprintf("%s: %s -> %s", m.Name, m.From, m.To))
	}
	for _, m := range r.Stopped {
		lines = append(lines, fmt.Sprintf("%s: %s -> -", m.Name, m.From))
	}
	for _, u := range r.Unplaced {
		lines = append(lines, fmt.Sprintf("unplaced %s.%s x%d", u.JobID, u.Group, u.Count))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// realMoves reads the same from the state after the real drain: an alloc
// of before that stopped moves to its live replacement's node ("-": none);
// one still live on its node counts as unplaced with its group's missing
// allocs.
func realMoves(t *testing.T, s *Sim, before []*structs.Allocation) string {
	t.Helper()
	st := s.srv.State()
	names := map[string]string{}
	for _, n := range s.sortedNodes() {
		names[n.ID] = n.Name
	}
	var lines []string
	unplaced := map[string]int{}
	for _, a := range before {
		cur, err := st.AllocByID(nil, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !cur.TerminalStatus() {
			unplaced[a.JobID+"."+a.TaskGroup]++
			continue
		}
		all, err := st.AllocsByJob(nil, a.Namespace, a.JobID, false)
		if err != nil {
			t.Fatal(err)
		}
		to := "-"
		for _, r := range all {
			if r.PreviousAllocation == a.ID && !r.TerminalStatus() {
				to = names[r.NodeID]
			}
		}
		lines = append(lines, fmt.Sprintf("%s: %s -> %s", a.Name, names[a.NodeID], to))
	}
	jobs, err := st.Jobs(nil, structs.DefaultNamespace)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Type == structs.JobTypeSystem {
			continue
		}
		all, err := st.AllocsByJob(nil, j.Namespace, j.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range j.TaskGroups {
			live := 0
			for _, a := range all {
				if a.TaskGroup == tg.Name && !a.TerminalStatus() {
					live++
				}
			}
			unplaced[j.ID+"."+tg.Name] += max(tg.Count-live, 0)
		}
	}
	for g, n := range unplaced {
		if n > 0 {
			lines = append(lines, fmt.Sprintf("unplaced %s x%d", g, n))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
