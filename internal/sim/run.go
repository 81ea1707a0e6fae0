package sim

import (
	"fmt"
	"maps"
	"slices"
)

// Result is what running a scenario produced.
type Result struct {
	Scenario *Scenario
	History  History
	// Failures lists every expectation that did not hold, with when it
	// was checked.
	Failures []string
}

// Passed reports whether every expectation held.
func (r *Result) Passed() bool { return len(r.Failures) == 0 }

// Run plays a scenario on a fresh deterministic simulation.
func Run(sc *Scenario, opts Options) (*Result, error) {
	s, err := New(sc.Seed, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Play(sc)
}

// Play runs a scenario on this simulation: nodes, then jobs, then the
// timeline, checking each expectation when its step comes.
func (s *Sim) Play(sc *Scenario) (*Result, error) {
	res := &Result{Scenario: sc}
	p := &player{sim: s, res: res}
	if err := p.setup(sc); err != nil {
		return res, err
	}
	for _, st := range sc.sortedSteps() {
		if err := p.step(st); err != nil {
			return res, fmt.Errorf("step at %v: %w", st.At, err)
		}
	}
	if err := s.RunUntilIdle(); err != nil {
		return res, err
	}
	if err := p.check("end", sc.Expect); err != nil {
		return res, err
	}
	h, err := s.History()
	res.History = h
	return res, err
}

// player carries a scenario's name resolution while it runs.
type player struct {
	sim        *Sim
	res        *Result
	nodeGroups map[string][]NodeSpec
	jobGroups  map[string][]JobSpec
	prints     int // fingerprint changes so far
}

func (p *player) setup(sc *Scenario) error {
	start, nodeGroups := sc.nodeSpecs()
	p.nodeGroups = nodeGroups
	for _, spec := range start {
		if _, err := p.sim.AddNode(spec); err != nil {
			return err
		}
	}
	jobs, byGroup := sc.jobSpecs()
	p.jobGroups = byGroup
	for _, j := range jobs {
		if err := p.sim.RegisterJob(j); err != nil {
			return err
		}
	}
	return nil
}

// step advances to the step's time and runs its operations in order.
func (p *player) step(st Step) error {
	s := p.sim
	if wait := st.At - s.Elapsed(); wait > 0 {
		if err := s.AdvanceTime(wait); err != nil {
			return err
		}
	}
	ops := []struct {
		names []string
		do    func(string) error
	}{
		{st.AddNodes, p.addNodes},
		{st.Register, p.register},
		{p.jobs(st.Update), s.UpdateJob},
		{st.Stop, s.StopJob},
		{p.jobs(st.RejectPlans), func(j string) error { s.RejectPlans(j); return nil }},
		{p.jobs(st.AcceptPlans), func(j string) error { s.AcceptPlans(j); return nil }},
		{p.nodes(st.Down), s.Down},
		{p.nodes(st.MissHeartbeats), s.MissHeartbeats},
		{p.nodes(st.Resume), s.Resume},
		{p.nodes(st.Fingerprint), p.fingerprint},
		{p.nodes(st.Fill), s.FillNode},
		{p.nodes(st.Drain), s.Drain},
		{p.jobs(st.FailAlloc), s.FailAlloc},
		{p.jobs(st.Purge), s.PurgeJob},
		{p.jobs(st.StopAlloc), s.StopAlloc},
		{p.jobs(st.RestartAlloc), s.RestartAlloc},
		{p.nodes(st.Ineligible), func(n string) error { return s.SetEligibility(n, false) }},
		{p.nodes(st.Eligible), func(n string) error { return s.SetEligibility(n, true) }},
		{p.jobs(st.Promote), s.PromoteDeployment},
		{p.jobs(st.FailDeployment), s.FailDeployment},
		{p.jobs(st.ForcePeriodic), s.ForcePeriodic},
		{p.jobs(st.Dispatch), s.Dispatch},
	}
	for _, node := range slices.Sorted(maps.Keys(st.DrainDeadline)) {
		if err := s.DrainWithDeadline(node, st.DrainDeadline[node]); err != nil {
			return err
		}
	}
	for _, job := range slices.Sorted(maps.Keys(st.Scale)) {
		if err := s.Scale(job, st.Scale[job]); err != nil {
			return err
		}
	}
	if st.WorkerDies > 0 {
		s.WorkerDies(st.WorkerDies)
	}
	for _, op := range ops {
		for _, name := range op.names {
			if err := op.do(name); err != nil {
				return err
			}
		}
	}
	if st.LeaderChange {
		if err := s.LeaderChange(); err != nil {
			return err
		}
	}
	if err := s.RunUntilIdle(); err != nil {
		return err
	}
	return p.check(fmt.Sprintf("at %v", st.At), st.Expect)
}

// register registers a deferred job or every job of a deferred group.
func (p *player) register(name string) error {
	specs, ok := p.jobGroups[name]
	if !ok {
		return fmt.Errorf("no job %q", name)
	}
	for _, j := range specs {
		if err := p.sim.RegisterJob(j); err != nil {
			return err
		}
	}
	return nil
}

func (p *player) fingerprint(node string) error {
	p.prints++
	return p.sim.ChangeFingerprint(node, map[string]string{"sim.fingerprint": fmt.Sprint(p.prints)})
}

// addNodes adds a deferred node or every node of a deferred group.
func (p *player) addNodes(name string) error {
	specs, ok := p.nodeGroups[name]
	if !ok {
		return fmt.Errorf("no node %q", name)
	}
	for _, n := range specs {
		if _, err := p.sim.AddNode(n); err != nil {
			return err
		}
	}
	return nil
}

// nodes expands node group names into their members.
func (p *player) nodes(names []string) []string {
	var out []string
	for _, n := range names {
		members, ok := p.nodeGroups[n]
		if !ok {
			out = append(out, n)
			continue
		}
		for _, m := range members {
			out = append(out, m.Name)
		}
	}
	return out
}

// jobs expands job group names into their members.
func (p *player) jobs(names []string) []string {
	var out []string
	for _, n := range names {
		specs, ok := p.jobGroups[n]
		if !ok {
			out = append(out, n)
			continue
		}
		for _, j := range specs {
			out = append(out, j.Name)
		}
	}
	return out
}

// check evaluates an expectation now and records what failed.
func (p *player) check(when string, e *Expect) error {
	if e == nil {
		return nil
	}
	h, err := p.sim.History()
	if err != nil {
		return err
	}
	for _, f := range e.check(h, p.sim.Elapsed()) {
		p.res.Failures = append(p.res.Failures, when+": "+f)
	}
	return nil
}
