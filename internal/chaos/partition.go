package chaos

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"
)

// A partition cuts the cluster in two: the leader and, with 5 servers, one
// follower on the minority side, the rest on the majority side. Every
// server-to-server byte across the cut is dropped (raft, RPC forwarding,
// gossip over UDP and TCP: each agent follows its -partition-file, see
// internal/server/peer_filter.go), and the simulated clients talk to the
// majority side only. The harness itself still reaches every server's
// HTTP API, so it sees what the minority side answers.

// partitionSettle is how long the agents take to read their partition
// files (they poll every 100 ms), with margin.
const partitionSettle = 500 * time.Millisecond

// partitionHold is how long the partition lasts once the majority
// schedules again: its acknowledged writes must survive the healing.
const partitionHold = 3 * time.Second

// minorityWith is the minority side containing leader: (n-1)/2 servers.
func (h *harness) minorityWith(leader *serverProc) []*serverProc {
	side := []*serverProc{leader}
	for _, s := range h.servers {
		if len(side) >= (len(h.servers)-1)/2 {
			break
		}
		if s != leader && s.alive() {
			side = append(side, s)
		}
	}
	return side
}

// partition cuts minority off from the other servers, both ways: drop
// makes the agents drop the traffic silently (a real partition: dials and
// reads hang) rather than refuse it.
func (h *harness) partition(minority []*serverProc, drop bool) error {
	inMinority := map[*serverProc]bool{}
	for _, s := range minority {
		inMinority[s] = true
	}
	for _, s := range h.servers {
		var cut []string // both the rpc and the serf address of each peer across
		if drop {
			cut = append(cut, "drop")
		}
		for _, o := range h.servers {
			if inMinority[o] != inMinority[s] {
				cut = append(cut, o.rpcAddr(), o.serfAddr())
			}
		}
		if err := s.setPartition(cut); err != nil {
			return err
		}
	}
	var majority []string
	for _, s := range h.servers {
		if !inMinority[s] {
			majority = append(majority, s.rpcAddr())
		}
	}
	return h.nodes.useServers(majority)
}

// partitionOutcome is what the minority side did while cut off.
type partitionOutcome struct {
	stepDown    time.Duration // partition -> the old leader no longer leads
	steppedDown bool
	gossipCut   time.Duration // partition -> the majority's gossip sees the minority failed
	gossipSaw   bool
	writes      []minorityWrite
}

// minorityWrite is one job register sent to a minority server.
type minorityWrite struct {
	server, jobID string
	status        int // HTTP status of the refusal; 200 means acknowledged
	err           error
}

// watchMinority runs while the majority elects: it waits for the old
// leader to step down and sends a write to every minority server (a
// follower forwards it to the old leader, or finds no leader). None may
// be acknowledged.
func (h *harness) watchMinority(round int, start time.Time, oldLeader *serverProc, minority []*serverProc) *partitionOutcome {
	out := &partitionOutcome{}
	gossip := make(chan struct{})
	go func() {
		defer close(gossip)
		out.gossipCut, out.gossipSaw = h.waitGossipCut(start, minority)
	}()
	defer func() { <-gossip }()
	time.Sleep(partitionSettle)
	var wg sync.WaitGroup
	out.writes = make([]minorityWrite, len(minority))
	for i, s := range minority {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out.writes[i] = minorityRegister(s, fmt.Sprintf("minority-%d-%s", round, s.name))
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, state, _, err := oldLeader.raftState(); err == nil && state != "Leader" {
			out.stepDown, out.steppedDown = time.Since(start), true
			break
		}
		time.Sleep(20 * time.Millisecond) // polling the old leader's role
	}
	wg.Wait()
	return out
}

// waitGossipCut waits until a majority server's gossip no longer sees any
// minority server alive: proof that serf's UDP and TCP are cut too. A
// failed member may already be "left": autopilot's dead-server cleanup
// forces failed servers out.
func (h *harness) waitGossipCut(start time.Time, minority []*serverProc) (time.Duration, bool) {
	majority := h.among(minority)
	if len(majority) == 0 {
		return 0, false
	}
	seen := ""
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		members, err := majority[0].api.Agent().Members()
		if err == nil {
			var cut bool
			if cut, seen = noneAlive(members.Members, minority); cut {
				return time.Since(start), true
			}
		}
		time.Sleep(50 * time.Millisecond) // polling gossip
	}
	fmt.Fprintf(h.cfg.Log, "  %s's gossip still sees: %s\n", majority[0].name, seen)
	return 0, false
}

// noneAlive reports whether no server is an alive member, and what
// status each has.
func noneAlive(members []*api.AgentMember, servers []*serverProc) (bool, string) {
	cut, seen := true, ""
	for _, s := range servers {
		for _, m := range members {
			if strings.HasPrefix(m.Name, s.name+".") {
				seen += fmt.Sprintf("%s %s; ", m.Name, m.Status)
				cut = cut && m.Status != "alive"
			}
		}
	}
	return cut, seen
}

var responseCode = regexp.MustCompile(`response code: (\d{3})`)

// minorityRegister registers a job through s with a client patient enough
// to see the server's own answer (a leader that cannot commit answers
// only once it steps down).
func minorityRegister(s *serverProc, jobID string) minorityWrite {
	w := minorityWrite{server: s.name, jobID: jobID}
	c, err := api.NewClient(&api.Config{Address: fmt.Sprintf("http://127.0.0.1:%d", s.httpPort),
		HttpClient: &http.Client{Timeout: 20 * time.Second}})
	if err != nil {
		w.err = err
		return w
	}
	_, _, w.err = c.Jobs().Register(probeJob(jobID), nil)
	if w.err == nil {
		w.status = http.StatusOK
	} else if m := responseCode.FindStringSubmatch(w.err.Error()); m != nil {
		fmt.Sscan(m[1], &w.status)
	}
	return w
}

// recordPartition adds a partition round's outcome to the report and logs
// it; a write acknowledged by the minority, or an old leader that never
// stepped down, is a failed check.
func (h *harness) recordPartition(o *partitionOutcome) {
	r := h.report
	if o.steppedDown {
		r.LeaderStepDown = append(r.LeaderStepDown, o.stepDown)
	} else {
		r.StaleLeaders++
		fmt.Fprintf(h.cfg.Log, "  STALE LEADER: the partitioned leader still leads after 30s\n")
	}
	if o.gossipSaw {
		r.GossipCut = append(r.GossipCut, o.gossipCut)
	} else {
		r.GossipLeaks++
		fmt.Fprintf(h.cfg.Log, "  GOSSIP LEAK: the majority still sees a minority server alive after 30s\n")
	}
	for _, w := range o.writes {
		r.MinorityWrites++
		switch {
		case w.status == http.StatusOK:
			r.MinorityAcked++
			fmt.Fprintf(h.cfg.Log, "  ACKED ON MINORITY: %s via %s\n", w.jobID, w.server)
		case w.status == http.StatusServiceUnavailable:
			r.MinorityRefused503++
		default:
			fmt.Fprintf(h.cfg.Log, "  minority write %s via %s refused otherwise: %v\n", w.jobID, w.server, w.err)
		}
	}
}

// minorityWritesApplied counts, after healing, minority writes the
// cluster nevertheless holds: none may be, as none could commit.
func (h *harness) minorityWritesApplied(leader *serverProc, o *partitionOutcome) (int, error) {
	n := 0
	for _, w := range o.writes {
		job, _, err := leader.api.Jobs().Info(w.jobID, nil)
		if err != nil && responseCode.FindStringSubmatch(err.Error()) == nil {
			return 0, err
		}
		if err == nil && job != nil {
			n++
			fmt.Fprintf(h.cfg.Log, "  MINORITY WRITE APPLIED: %s (answered %d)\n", w.jobID, w.status)
		}
	}
	return n, nil
}

// summary is each minority write's answer, e.g. "chaos-1 503, chaos-4 503".
func (o *partitionOutcome) summary() string {
	parts := make([]string, len(o.writes))
	for i, w := range o.writes {
		parts[i] = fmt.Sprintf("%s %d", w.server, w.status)
	}
	return strings.Join(parts, ", ")
}
