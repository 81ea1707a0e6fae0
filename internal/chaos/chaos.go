package chaos

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"
)

// Config is one harness run.
type Config struct {
	Binary  string // the drover binary the servers run
	Servers int    // 3 or 5
	Rounds  int
	Nodes   int // simulated client nodes
	// Clients is how many real client agents run the load's raw_exec
	// jobs (real task processes); default 1, negative for none.
	Clients int
	Seed    uint64
	// Faults is the cycle rounds go through (default: every fault).
	Faults []string
	// Soak is how long the load runs on the healed cluster before each
	// round's checks (default 3 s).
	Soak    time.Duration
	WorkDir string    // servers' data dirs and logs
	Log     io.Writer // one line per round
}

// Report is what a run measured.
type Report struct {
	Servers, Rounds, Faults int
	FaultCounts             map[string]int
	AckedWrites             int
	Lost                    int
	DoublePlacements        int
	OverCommits             int
	StuckEvals              int
	// OrphanedAllocs are allocs still to run, after the settle period,
	// whose job was purged or purged and registered again;
	// OrphanProcesses task processes on the real clients whose alloc is
	// terminal or unknown.
	OrphanedAllocs      int
	OrphanProcesses     int
	TaskProcsSeen       int // the most task processes one check saw on the real clients
	Purges              int // acknowledged purges (each followed by a register of the same ID)
	TermsWithTwoLeaders int
	LeaderElection      []time.Duration // fault -> a new leader agreed (leader faults)
	SchedulingResumed   []time.Duration // fault -> a probe job's eval complete
	// Partitions: the old leader's step-down, and writes sent to the
	// minority side (each must be refused, none may apply).
	LeaderStepDown     []time.Duration // partition -> the old leader no longer leads
	StaleLeaders       int             // partitioned leaders that never stepped down
	GossipCut          []time.Duration // partition -> the majority's gossip sees the minority failed
	GossipLeaks        int             // partitions the majority's gossip never noticed
	AckedInPartition   int             // writes acknowledged (by the majority) while partitioned
	MinorityWrites     int
	MinorityRefused503 int
	MinorityAcked      int
	MinorityApplied    int // refused, yet present after healing
	// WriteGap is, per partition fault, the longest stretch without an
	// acknowledged write from the partition on; WritesAfterElection the
	// time from the new leader's election (as the harness saw it) to the
	// first write acknowledged after it (0 when writes never stopped).
	WriteGap            map[string][]time.Duration
	WritesAfterElection map[string][]time.Duration
	// The sequential writer (one variable write at a time, seqTimeout each):
	// per leader fault, the time from the fault to a new leader observed,
	// the longest stretch without an acknowledgement until the first one
	// after the election, and how far beyond the election that came.
	SeqElection     map[string][]time.Duration
	SeqGap          map[string][]time.Duration
	SeqBeyond       map[string][]time.Duration
	SeqAcked        int
	SeqFailed       int
	SeqLatency      []time.Duration
	SeqNeverResumed int // leader faults after which no write was acknowledged by the round's checks
}

// Faults, in the order rounds cycle through them.
const (
	FaultKillLeader    = "kill-leader"
	FaultKillFollower  = "kill-follower"
	FaultRestart       = "restart-follower"
	FaultPauseLeader   = "pause-leader"
	FaultPartitionLead = "partition-leader"
	// FaultPartitionDrop is a partition that drops packets silently, as a
	// real network does, where partition-leader refuses connections.
	FaultPartitionDrop = "partition-leader-drop"
	FaultNodeFlap      = "node-flap"
	// FaultKillClient SIGKILLs the real client agent for clientDown
	// (its node goes down, its allocs are lost and replaced, its task
	// processes run on) and starts it again: it must kill the tasks of
	// allocs that are gone.
	FaultKillClient = "kill-client"
)

// clientDown is how long a killed client stays down: past the servers'
// heartbeat TTL and grace (2 s + 3 s), so its node is marked down.
const clientDown = 7 * time.Second

var faultCycle = []string{FaultKillLeader, FaultKillFollower, FaultPauseLeader, FaultPartitionLead, FaultRestart, FaultNodeFlap, FaultPartitionDrop, FaultKillClient}

// isPartition reports whether fault partitions the leader away.
func isPartition(fault string) bool {
	return fault == FaultPartitionLead || fault == FaultPartitionDrop
}

// electionPause is how long a paused leader stays stopped: longer than
// raft's election timeout (1 s) so the others elect a new one.
const electionPause = 3 * time.Second

type harness struct {
	cfg     Config
	rng     *rand.Rand
	rngMu   sync.Mutex
	servers []*serverProc
	clients []*clientProc
	// orphansSeen are the orphan processes already counted.
	orphansSeen map[string]bool
	seq         *seqWriter
	nodes       *simNodes
	load        *load
	terms       *termWatch
	report      *Report
	faults      []string
	// minority is the side a partition cut off (nil otherwise): the load
	// writes through the majority, as its clients would.
	minority   []*serverProc
	minorityMu sync.Mutex
	// deposed is the last leader a pause or partition deposed. Rejoining,
	// it truncated the uncommitted tail of its log; a restart fault hits
	// it while it follows, so that its log must still open (raft-wal
	// v0.4.0 panicked there).
	deposed *serverProc
}

// Run runs the harness and returns its figures; err is for a harness that
// could not run (a failed check is reported in the figures, not as err).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Servers < 3 {
		cfg.Servers = 3
	}
	if cfg.Nodes <= 0 {
		cfg.Nodes = 8
	}
	if cfg.Soak <= 0 {
		cfg.Soak = 3 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	h := &harness{cfg: cfg, orphansSeen: map[string]bool{}, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b9)), faults: cfg.Faults,
		report: &Report{Servers: cfg.Servers, Rounds: cfg.Rounds, FaultCounts: map[string]int{},
			WriteGap: map[string][]time.Duration{}, WritesAfterElection: map[string][]time.Duration{},
			SeqElection: map[string][]time.Duration{}, SeqGap: map[string][]time.Duration{}, SeqBeyond: map[string][]time.Duration{}}}
	if len(h.faults) == 0 {
		h.faults = faultCycle
	}
	for _, f := range h.faults {
		if !slices.Contains(faultCycle, f) {
			return nil, fmt.Errorf("unknown fault %q (known: %v)", f, faultCycle)
		}
	}
	defer h.stopAll()
	if err := h.startServers(); err != nil {
		return nil, err
	}
	if _, err := h.waitLeader(60 * time.Second); err != nil {
		return nil, fmt.Errorf("cluster never formed: %w", err)
	}
	if err := h.tuneAutopilot(); err != nil {
		return nil, err
	}
	h.terms = watchTerms(h.servers)
	var err error
	if h.nodes, err = startSimNodes(h.rpcAddrs(), cfg.Nodes); err != nil {
		return nil, err
	}
	if cfg.Clients == 0 {
		cfg.Clients = 1
		h.cfg.Clients = 1
	}
	for i := 1; i <= cfg.Clients; i++ {
		name := fmt.Sprintf("chaos-client-%d", i)
		c, err := startClient(cfg.Binary, filepath.Join(cfg.WorkDir, name), name, h.rpcAddrs())
		if err != nil {
			return nil, err
		}
		h.clients = append(h.clients, c)
		if err := c.waitReady(h.servers[0].api, 60*time.Second); err != nil {
			return nil, err
		}
	}
	h.load = startLoad(h)
	h.seq = startSeqWriter(h)
	for round := 1; round <= cfg.Rounds && ctx.Err() == nil; round++ {
		fault := h.faults[(round-1)%len(h.faults)]
		if err := h.round(round, fault); err != nil {
			return h.finish(), fmt.Errorf("round %d (%s): %w", round, fault, err)
		}
	}
	return h.finish(), nil
}

// chaosStabilization is autopilot's server stabilization time here:
// loopback with fast gossip settles in well under Nomad's default 10 s,
// and every round waits for a server that autopilot removed (cut off or
// killed) to vote again.
const chaosStabilization = 2 * time.Second

// tuneAutopilot shortens the stabilization time through the operator API
// (the configuration is raft-stored, so every later leader keeps it). A
// young cluster on a loaded machine may still change leader under the
// write, so it is retried on the newest leader for up to a minute.
func (h *harness) tuneAutopilot() error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := h.setStabilization()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond) // a new election is under way
	}
}

func (h *harness) setStabilization() error {
	leader, err := h.waitLeader(60 * time.Second)
	if err != nil {
		return err
	}
	op := leader.api.Operator()
	conf, _, err := op.AutopilotGetConfiguration(nil)
	if err != nil {
		return fmt.Errorf("read autopilot configuration: %w", err)
	}
	conf.ServerStabilizationTime = chaosStabilization
	if _, err := op.AutopilotSetConfiguration(conf, nil); err != nil {
		return fmt.Errorf("set autopilot configuration: %w", err)
	}
	return nil
}

func (h *harness) intn(n int) int {
	h.rngMu.Lock()
	defer h.rngMu.Unlock()
	return h.rng.IntN(n)
}

func (h *harness) rpcAddrs() []string {
	var out []string
	for _, s := range h.servers {
		out = append(out, s.rpcAddr())
	}
	return out
}

func (h *harness) startServers() error {
	ports, err := freePorts(3 * h.cfg.Servers)
	if err != nil {
		return err
	}
	var join []string
	for i := 0; i < h.cfg.Servers; i++ {
		p := &serverProc{name: fmt.Sprintf("chaos-%d", i+1), binary: h.cfg.Binary,
			httpPort: ports[3*i], rpcPort: ports[3*i+1], serfP: ports[3*i+2]}
		p.dir = filepath.Join(h.cfg.WorkDir, p.name)
		if err := os.MkdirAll(p.dir, 0o700); err != nil {
			return err
		}
		p.api, _ = api.NewClient(&api.Config{Address: fmt.Sprintf("http://127.0.0.1:%d", p.httpPort),
			HttpClient: &http.Client{Timeout: 3 * time.Second}})
		h.servers = append(h.servers, p)
		join = append(join, p.serfAddr())
	}
	for _, p := range h.servers {
		if err := p.writeConfig(h.cfg.Servers, join); err != nil {
			return err
		}
		if err := p.start(); err != nil {
			return err
		}
	}
	for _, p := range h.servers {
		if err := p.waitHTTP(30 * time.Second); err != nil {
			return err
		}
	}
	return nil
}

func (h *harness) stopAll() {
	if h.load != nil {
		h.load.stop()
	}
	if h.seq != nil {
		h.seq.stop()
	}
	for _, c := range h.clients {
		c.stop()
	}
	killTasks(h.cfg.WorkDir)
	if h.nodes != nil {
		h.nodes.stop()
	}
	if h.terms != nil {
		h.terms.stop()
	}
	for _, s := range h.servers {
		s.kill()
	}
}

// reachable are the servers that are running and not paused.
func (h *harness) reachable() []*serverProc {
	var out []*serverProc
	for _, s := range h.servers {
		if s.running() {
			out = append(out, s)
		}
	}
	return out
}

// waitLeader waits until every reachable server (except excluded ones)
// names the same leader, which is not excluded; it returns the leader.
func (h *harness) waitLeader(timeout time.Duration, exclude ...*serverProc) (*serverProc, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if l := h.agreedLeader(exclude); l != nil {
			return l, nil
		}
		time.Sleep(20 * time.Millisecond) // polling real processes
	}
	return nil, fmt.Errorf("no agreed leader within %s", timeout)
}

func (h *harness) agreedLeader(exclude []*serverProc) *serverProc {
	addr := ""
	for _, s := range h.among(exclude) {
		l, err := s.api.Status().Leader()
		if err != nil || l == "" || (addr != "" && l != addr) {
			return nil
		}
		addr = l
	}
	for _, s := range h.among(exclude) {
		if s.rpcAddr() == addr {
			return s
		}
	}
	return nil
}

// writable are the servers the load writes through: reachable ones, and
// during a partition only those on the majority side.
func (h *harness) writable() []*serverProc {
	h.minorityMu.Lock()
	cut := h.minority
	h.minorityMu.Unlock()
	return h.among(cut)
}

func (h *harness) setMinority(side []*serverProc) {
	h.minorityMu.Lock()
	h.minority = side
	h.minorityMu.Unlock()
}

// among are the reachable servers, except excluded ones.
func (h *harness) among(exclude []*serverProc) []*serverProc {
	var out []*serverProc
	for _, s := range h.reachable() {
		if !slices.Contains(exclude, s) {
			out = append(out, s)
		}
	}
	return out
}

// round injects one fault, measures recovery, heals and checks.
func (h *harness) round(n int, fault string) error {
	leader, err := h.waitLeader(60 * time.Second)
	if err != nil {
		return err
	}
	victim := h.victim(fault, leader)
	h.report.Faults++
	h.report.FaultCounts[fault]++
	ackedBefore := h.load.acked()
	start := time.Now()
	cutOff, err := h.inject(fault, victim)
	if err != nil {
		return err
	}
	var minority chan *partitionOutcome
	if isPartition(fault) {
		minority = make(chan *partitionOutcome, 1)
		go func() { minority <- h.watchMinority(n, start, victim, cutOff) }()
	}
	var elected time.Time
	if victim == leader && fault != FaultNodeFlap && fault != FaultKillClient {
		if _, err := h.waitLeader(60*time.Second, cutOff...); err != nil {
			return fmt.Errorf("no new leader: %w", err)
		}
		elected = time.Now()
		h.report.LeaderElection = append(h.report.LeaderElection, elected.Sub(start))
	}
	resumed, err := h.probeScheduling(n, start, cutOff)
	if err != nil {
		return err
	}
	h.report.SchedulingResumed = append(h.report.SchedulingResumed, resumed)
	switch fault {
	case FaultPauseLeader:
		if rest := electionPause - time.Since(start); rest > 0 {
			time.Sleep(rest) // the pause's length is the fault itself
		}
	case FaultPartitionLead, FaultPartitionDrop:
		time.Sleep(partitionHold) // the majority takes writes while the minority is cut off
		gap, resumed := h.load.writeGap(start, elected, time.Now())
		h.report.WriteGap[fault] = append(h.report.WriteGap[fault], gap)
		h.report.WritesAfterElection[fault] = append(h.report.WritesAfterElection[fault], resumed)
		fmt.Fprintf(h.cfg.Log, "           write gap %6.2fs  writes resumed %6.2fs after the election\n", gap.Seconds(), resumed.Seconds())
	}
	var outcome *partitionOutcome
	if minority != nil {
		outcome = <-minority
		h.report.AckedInPartition += h.load.acked() - ackedBefore
		h.recordPartition(outcome)
	}
	if err := h.heal(isPartition(fault)); err != nil {
		return err
	}
	time.Sleep(h.cfg.Soak) // load on the healed cluster before the checks
	err = h.checkRound(n, fault, victim, resumed, outcome)
	if !elected.IsZero() {
		h.recordSeq(fault, start, elected)
	}
	return err
}

// victim is the server a fault hits: the leader for leader faults, the
// last deposed leader for a restart while it is a live follower, else the
// first live follower.
func (h *harness) victim(fault string, leader *serverProc) *serverProc {
	switch fault {
	case FaultKillLeader, FaultPauseLeader, FaultPartitionLead, FaultPartitionDrop:
		return leader
	case FaultRestart:
		if d := h.deposed; d != nil && d != leader && d.alive() {
			return d
		}
	}
	for _, s := range h.servers {
		if s != leader && s.alive() {
			return s
		}
	}
	return leader
}

// inject starts the fault; it returns the servers cut off from the rest
// (which neither elect the new leader nor take the probe job).
func (h *harness) inject(fault string, victim *serverProc) ([]*serverProc, error) {
	switch fault {
	case FaultKillLeader, FaultKillFollower:
		victim.kill()
	case FaultRestart:
		victim.kill()
		return nil, victim.start()
	case FaultPauseLeader:
		h.deposed = victim
		victim.pause()
		return []*serverProc{victim}, nil
	case FaultPartitionLead, FaultPartitionDrop:
		h.deposed = victim
		minority := h.minorityWith(victim)
		h.setMinority(minority)
		return minority, h.partition(minority, fault == FaultPartitionDrop)
	case FaultNodeFlap:
		h.nodes.flap(h.intn(len(h.nodes.nodes)), 6*time.Second)
	case FaultKillClient:
		if len(h.clients) == 0 {
			return nil, nil
		}
		c := h.clients[h.intn(len(h.clients))]
		c.kill()
		time.Sleep(clientDown) // the fault's length: the node must go down
		if err := c.start(); err != nil {
			return nil, err
		}
		return nil, c.waitReady(h.servers[0].api, 60*time.Second)
	}
	return nil, nil
}

// checkRound runs the round's checks on the healed cluster and logs them.
func (h *harness) checkRound(n int, fault string, victim *serverProc, resumed time.Duration, outcome *partitionOutcome) error {
	c, err := h.check()
	if err != nil {
		return err
	}
	h.report.Lost += c.lost
	h.report.DoublePlacements += c.doubles
	h.report.OverCommits += c.over
	h.report.StuckEvals += c.stuck
	h.report.OrphanedAllocs += c.orphanAllocs
	h.report.OrphanProcesses += c.orphanProcs
	fmt.Fprintf(h.cfg.Log, "round %3d  %-17s victim %-8s  scheduling resumed %6.2fs  acked %5d  lost %d  double %d  overcommit %d  stuck evals %d  orphaned allocs %d  orphan processes %d\n",
		n, fault, victim.name, resumed.Seconds(), h.load.acked(), c.lost, c.doubles, c.over, c.stuck, c.orphanAllocs, c.orphanProcs)
	if outcome == nil {
		return nil
	}
	leader, err := h.waitLeader(60 * time.Second)
	if err != nil {
		return err
	}
	applied, err := h.minorityWritesApplied(leader, outcome)
	if err != nil {
		return err
	}
	h.report.MinorityApplied += applied
	fmt.Fprintf(h.cfg.Log, "           old leader stepped down %6.2fs  gossip saw minority down %6.2fs  minority writes %d: %s\n",
		outcome.stepDown.Seconds(), outcome.gossipCut.Seconds(), len(outcome.writes), outcome.summary())
	return nil
}

// heal undoes the fault: killed servers restart (same ports and data),
// paused ones continue, partitions end; then waits for a full cluster.
func (h *harness) heal(partitioned bool) error {
	if partitioned {
		h.setMinority(nil)
		if err := h.nodes.useServers(h.rpcAddrs()); err != nil {
			return err
		}
	}
	for _, s := range h.servers {
		if err := s.setPartition(nil); err != nil {
			return err
		}
		s.resume()
		if !s.alive() {
			if err := s.start(); err != nil {
				return err
			}
		}
	}
	for _, s := range h.servers {
		if err := s.waitHTTP(30 * time.Second); err != nil {
			return err
		}
	}
	if _, err := h.waitLeader(60 * time.Second); err != nil {
		return err
	}
	// Autopilot may have removed a dead server; back, it votes again only
	// after the stabilization time. The next fault needs every voter.
	return h.waitVoters(90 * time.Second)
}

// waitVoters waits until the leader counts every server as a voter.
func (h *harness) waitVoters(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if l := h.agreedLeader(nil); l != nil {
			if peers, err := l.api.Status().Peers(); err == nil && len(peers) == len(h.servers) {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond) // polling the cluster
	}
	return fmt.Errorf("not every server is a voter again within %s", timeout)
}

// probeScheduling registers a probe job through any reachable server (not
// cut off) until
// the write is acknowledged and its eval completes; it returns the time
// from start.
func (h *harness) probeScheduling(round int, start time.Time, cutOff []*serverProc) (time.Duration, error) {
	id := fmt.Sprintf("probe-%d", round)
	deadline := time.Now().Add(90 * time.Second)
	last := "never acknowledged"
	for time.Now().Before(deadline) {
		srvs := h.among(cutOff)
		s := srvs[h.intn(len(srvs))]
		resp, _, err := s.api.Jobs().Register(probeJob(id), nil)
		if err != nil {
			last = fmt.Sprintf("register via %s: %v", s.name, err)
			time.Sleep(50 * time.Millisecond) // retrying a write the cluster refused
			continue
		}
		h.load.ack(id, resp.JobModifyIndex, 0, false)
		for time.Now().Before(deadline) {
			ev, _, err := s.api.Evaluations().Info(resp.EvalID, nil)
			if err == nil && (ev.Status == api.EvalStatusComplete || probePlacedEarlier(s, id, ev)) {
				return time.Since(start), nil
			}
			last = evalProgress(s, resp.EvalID, ev, err)
			time.Sleep(20 * time.Millisecond) // polling the eval
		}
	}
	return 0, fmt.Errorf("scheduling did not resume within 90s (%s)", last)
}

// probePlacedEarlier reports whether a probe eval was canceled as a no-op
// because the probe was already placed: a register whose answer was lost
// (a timeout while the leader committed it) is retried, and the retry's
// eval finds nothing left to do. Scheduling has resumed all the same.
func probePlacedEarlier(s *serverProc, jobID string, ev *api.Evaluation) bool {
	if ev.Status != api.EvalStatusCancelled {
		return false
	}
	allocs, _, err := s.api.Jobs().Allocations(jobID, false, nil)
	if err != nil {
		return false
	}
	for _, a := range allocs {
		if a.DesiredStatus == api.AllocDesiredStatusRun {
			return true
		}
	}
	return false
}

// evalProgress says where a probe eval stands, for a failed round.
func evalProgress(s *serverProc, evalID string, ev *api.Evaluation, err error) string {
	if err != nil {
		return fmt.Sprintf("eval %s read via %s: %v", evalID, s.name, err)
	}
	return fmt.Sprintf("eval %s via %s: status %q (%s), modify index %d", evalID, s.name, ev.Status, ev.StatusDescription, ev.ModifyIndex)
}

// recordSeq adds the sequential writer's view of a leader fault.
func (h *harness) recordSeq(fault string, start, elected time.Time) {
	r := h.report
	gap, beyond, ok := h.seq.afterFault(start, elected)
	r.SeqElection[fault] = append(r.SeqElection[fault], elected.Sub(start))
	if !ok {
		r.SeqNeverResumed++
		fmt.Fprintf(h.cfg.Log, "           election %6.2fs  sequential writes NEVER resumed (longest gap so far %6.2fs)\n", elected.Sub(start).Seconds(), gap.Seconds())
		return
	}
	r.SeqGap[fault] = append(r.SeqGap[fault], gap)
	r.SeqBeyond[fault] = append(r.SeqBeyond[fault], beyond)
	fmt.Fprintf(h.cfg.Log, "           election %6.2fs  sequential write gap %6.2fs, %6.2fs beyond the election\n", elected.Sub(start).Seconds(), gap.Seconds(), beyond.Seconds())
}

func (h *harness) finish() *Report {
	if h.seq != nil {
		h.seq.stop()
		h.report.SeqAcked, h.report.SeqFailed, h.report.SeqLatency = h.seq.latencies()
	}
	if h.load != nil {
		h.load.stop()
		h.report.AckedWrites = h.load.acked()
		h.report.Purges = h.load.purgeCount()
	}
	if h.terms != nil {
		h.report.TermsWithTwoLeaders = h.terms.violations()
	}
	return h.report
}

// Print writes the report's figures.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "servers                 %d\n", r.Servers)
	fmt.Fprintf(w, "rounds                  %d\n", r.Rounds)
	fmt.Fprintf(w, "faults                  %d %v\n", r.Faults, r.FaultCounts)
	fmt.Fprintf(w, "acknowledged writes     %d\n", r.AckedWrites)
	fmt.Fprintf(w, "lost                    %d\n", r.Lost)
	fmt.Fprintf(w, "double placements       %d\n", r.DoublePlacements)
	fmt.Fprintf(w, "over-commits            %d\n", r.OverCommits)
	fmt.Fprintf(w, "evals never processed   %d\n", r.StuckEvals)
	fmt.Fprintf(w, "orphaned allocs         %d (of purged incarnations; %d purges, each registered again)\n", r.OrphanedAllocs, r.Purges)
	fmt.Fprintf(w, "orphan task processes   %d (on the real clients, alloc terminal or unknown; up to %d task processes seen)\n", r.OrphanProcesses, r.TaskProcsSeen)
	fmt.Fprintf(w, "terms with two leaders  %d\n", r.TermsWithTwoLeaders)
	fmt.Fprintf(w, "time to new leader      p50 %s  p99 %s  (%d elections)\n", pct(r.LeaderElection, 50), pct(r.LeaderElection, 99), len(r.LeaderElection))
	fmt.Fprintf(w, "scheduling resumed      p50 %s  p99 %s\n", pct(r.SchedulingResumed, 50), pct(r.SchedulingResumed, 99))
	fmt.Fprintf(w, "sequential writer       %d acked, %d failed (timeout %s); latency p50 %s  p99 %s\n",
		r.SeqAcked, r.SeqFailed, seqTimeout, pct(r.SeqLatency, 50), pct(r.SeqLatency, 99))
	var allGap, allBeyond []time.Duration
	for _, f := range faultCycle {
		if len(r.SeqElection[f]) == 0 {
			continue
		}
		allGap = append(allGap, r.SeqGap[f]...)
		allBeyond = append(allBeyond, r.SeqBeyond[f]...)
		fmt.Fprintf(w, "  %-21s election p50 %s  p99 %s;  write gap p50 %s  p99 %s;  beyond the election p50 %s  p99 %s  (%d faults)\n", f,
			pct(r.SeqElection[f], 50), pct(r.SeqElection[f], 99), pct(r.SeqGap[f], 50), pct(r.SeqGap[f], 99),
			pct(r.SeqBeyond[f], 50), pct(r.SeqBeyond[f], 99), len(r.SeqElection[f]))
	}
	fmt.Fprintf(w, "write gap beyond election p50 %s  p99 %s  (all leader faults; gap p50 %s  p99 %s; %d never resumed)\n",
		pct(allBeyond, 50), pct(allBeyond, 99), pct(allGap, 50), pct(allGap, 99), r.SeqNeverResumed)
	partitions := r.FaultCounts[FaultPartitionLead] + r.FaultCounts[FaultPartitionDrop]
	if partitions == 0 {
		return
	}
	for _, f := range []string{FaultPartitionLead, FaultPartitionDrop} {
		if gaps := r.WriteGap[f]; len(gaps) > 0 {
			fmt.Fprintf(w, "write gap               p50 %s  p99 %s  (%s; writes resumed after the election p50 %s  p99 %s)\n",
				pct(gaps, 50), pct(gaps, 99), f, pct(r.WritesAfterElection[f], 50), pct(r.WritesAfterElection[f], 99))
		}
	}
	fmt.Fprintf(w, "old leader stepped down p50 %s  p99 %s  (%d partitions, %d never stepped down)\n",
		pct(r.LeaderStepDown, 50), pct(r.LeaderStepDown, 99), partitions, r.StaleLeaders)
	fmt.Fprintf(w, "gossip saw minority down p50 %s  p99 %s  (%d never)\n", pct(r.GossipCut, 50), pct(r.GossipCut, 99), r.GossipLeaks)
	fmt.Fprintf(w, "acked while partitioned %d (by the majority)\n", r.AckedInPartition)
	fmt.Fprintf(w, "minority-side writes    %d sent, %d refused with 503, %d acknowledged, %d applied after healing\n",
		r.MinorityWrites, r.MinorityRefused503, r.MinorityAcked, r.MinorityApplied)
}

// OK reports whether every check held.
func (r *Report) OK() bool {
	return r.Lost == 0 && r.DoublePlacements == 0 && r.OverCommits == 0 && r.StuckEvals == 0 && r.TermsWithTwoLeaders == 0 &&
		r.OrphanedAllocs == 0 && r.OrphanProcesses == 0 && r.SeqNeverResumed == 0 &&
		r.StaleLeaders == 0 && r.GossipLeaks == 0 && r.MinorityAcked == 0 && r.MinorityApplied == 0
}

func pct(ds []time.Duration, p int) string {
	if len(ds) == 0 {
		return "-"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))].Round(time.Millisecond).String()
}
