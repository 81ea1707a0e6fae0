package server

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/mock"
)

// dropPartition isolates one server by dropping its packets silently, as
// a real partition does (cluster.PeerDropped): each server's PeerFilter
// asks it.
type dropPartition struct {
	mu       sync.Mutex
	addrs    map[string][]string // server name -> its rpc and serf addresses
	isolated string              // the cut-off server's name ("" for none)
}

// filter is server name's PeerFilter.
func (p *dropPartition) filter(name string) func(addr string) PeerCut {
	return func(addr string) PeerCut {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.isolated == "" {
			return PeerReachable
		}
		if name == p.isolated {
			return PeerDropped // every peer is across the cut
		}
		for _, a := range p.addrs[p.isolated] {
			if a == addr {
				return PeerDropped
			}
		}
		return PeerReachable
	}
}

func (p *dropPartition) isolate(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isolated = name
}

// startDropCluster starts three servers with raft's production timings and
// forwarding timeouts far longer than any wait of the test: a forwarded
// call that waited one out would fail the test's bound.
func startDropCluster(t *testing.T) ([]*Server, *dropPartition) {
	t.Helper()
	p := &dropPartition{addrs: map[string][]string{}}
	var servers []*Server
	var join []string
	for _, name := range []string{"s1", "s2", "s3"} {
		s := startClusterServer(t, name, 3, join, func(c *Config) {
			c.RaftTimings = &RaftTimings{Heartbeat: time.Second, Election: time.Second, LeaderLease: 500 * time.Millisecond, Commit: 5 * time.Millisecond}
			c.PeerFilter = p.filter(name)
			c.ForwardTimeout = 10 * time.Minute
			c.PeerDialTimeout = 10 * time.Minute
		})
		p.mu.Lock()
		p.addrs[name] = []string{s.config.RaftAddr, s.SerfAddr()}
		p.mu.Unlock()
		servers = append(servers, s)
		join = []string{servers[0].SerfAddr()}
	}
	t.Cleanup(func() { p.isolate("") }) // heal before the servers shut down
	return servers, p
}

// agreedLeader waits until every server of among names the same active
// leader, one of them, and returns it.
func agreedLeader(t *testing.T, among []*Server) *Server {
	t.Helper()
	var leader *Server
	testutil.WaitFor(t, 60*time.Second, "the servers to agree on a leader", func() (bool, string) {
		leader = nil
		for _, s := range among {
			if s.IsLeader() && s.LeaderActive() {
				leader = s
			}
		}
		if leader == nil {
			return false, "no active leader"
		}
		for _, s := range among {
			if s.Leader() != leader.config.RaftAddr {
				return false, s.config.NodeName + " follows " + s.Leader()
			}
		}
		return true, ""
	})
	return leader
}

// answeredBy is the raft ID the answering server named as leader in a
// raft configuration reply.
func answeredBy(reply *structs.RaftConfigurationResponse) string {
	for _, srv := range reply.Servers {
		if srv.Leader {
			return srv.ID
		}
	}
	return ""
}

// TestForward_ReadReroutesWhenThePartitionedLeaderIsReplaced: a follower
// forwards a read to the leader just as a partition silently drops the
// leader's packets (the pooled connection stays open; nothing answers).
// When the majority elects a new leader the read is re-sent to it and
// answered by it, without waiting out the forwarding timeouts (ten
// minutes here). A write through the follower then reaches the new leader.
func TestForward_ReadReroutesWhenThePartitionedLeaderIsReplaced(t *testing.T) {
	servers, partition := startDropCluster(t)
	old := agreedLeader(t, servers)
	var follower *Server
	var majority []*Server
	for _, s := range servers {
		if s != old {
			majority = append(majority, s)
			follower = s
		}
	}
	// The follower's pooled connection to the leader is open and in use.
	if _, err := OperatorRaftGetConfiguration.Call(context.Background(), follower, &structs.GenericRequest{}); err != nil {
		t.Fatal(err)
	}

	partition.isolate(old.config.NodeName)
	type answer struct {
		reply *structs.RaftConfigurationResponse
		err   error
	}
	done := make(chan answer, 1)
	go func() {
		reply, err := OperatorRaftGetConfiguration.Call(context.Background(), follower, &structs.GenericRequest{})
		done <- answer{reply, err}
	}()
	var got answer
	testutil.WaitFor(t, 60*time.Second, "the forwarded read to be answered", func() (bool, string) {
		select {
		case got = <-done:
			return true, ""
		default:
			return false, "the read is still in flight; the follower's leader is " + follower.Leader()
		}
	})
	if got.err != nil {
		t.Fatalf("forwarded read: %v", got.err)
	}
	// The old leader cannot have answered: its packets are still dropped.
	newLeader := agreedLeader(t, majority)
	if by := answeredBy(got.reply); by != newLeader.NodeID() || by == old.NodeID() {
		t.Fatalf("the answer names leader %q; want the new leader %s (the old one was %s)", by, newLeader.NodeID(), old.NodeID())
	}

	job := mock.Job("after-the-partition")
	if _, err := JobRegister.Call(context.Background(), follower, &structs.JobRegisterArgs{Job: job}); err != nil {
		t.Fatalf("write through the follower after the election: %v", err)
	}
	if j, _ := newLeader.State().JobByID(nil, job.Namespace, job.ID); j == nil {
		t.Fatal("the write did not reach the new leader")
	}
}
