package server

import (
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"
	"github.com/hashicorp/serf/serf"
)

// Gossip tags every server publishes (Nomad's names, so tools reading
// /v1/agent/members see what they expect).
const (
	tagRole      = "role"
	tagRegion    = "region"
	tagDC        = "dc"
	tagBuild     = "build"
	tagVsn       = "vsn"
	tagRaftVsn   = "raft_vsn"
	tagID        = "id"
	tagRPCAddr   = "rpc_addr"
	tagPort      = "port"
	tagExpect    = "expect"
	roleServer   = "nomad"
	defaultSerf  = 4648
	serfSnapshot = "local.snapshot"
)

// Build is the version servers gossip (set by the agent).
var Build = "0.1.0-dev"

// SerfConfig configures gossip membership.
type SerfConfig struct {
	// BindAddr and BindPort are where serf listens (port 0 picks one).
	BindAddr string
	BindPort int
	// AdvertiseAddr is the address others reach this server's serf at
	// (empty: the bind address, or a private IP when bound to 0.0.0.0).
	AdvertiseAddr string
	// RetryJoin lists serf addresses (host or host:port) to join at
	// start, retried every RetryInterval, at most RetryMax times (0: until
	// one answers).
	RetryJoin     []string
	RetryInterval time.Duration
	RetryMax      int
	// Fast uses memberlist's loopback timings: failures are detected in
	// about a second (tests and the fault harness).
	Fast bool
	// DeadNodeReclaim is how long a failed member's name stays reserved
	// for its old address; after it, the same server restarted on another
	// address takes its name (and raft place) back. Default 5 s.
	DeadNodeReclaim time.Duration
}

// serverMember is a gossip member that is a Drover server.
type serverMember struct {
	Name, ID, Region, Datacenter, RPCAddr, Build string
	Expect, RaftVersion                          int
	Status                                       serf.MemberStatus
}

// cluster is the server's gossip membership.
type cluster struct {
	s       *Server
	serf    *serf.Serf
	events  chan serf.Event
	mu      sync.Mutex
	members map[string]serverMember // by ID, as last seen
	// reconcile wakes the leader's member reconciliation (buffered 1).
	reconcile chan struct{}
	// bootstrapped is set once raft has a configuration.
	bootstrapped bool
}

// setupCluster starts gossip when configured; a lone server skips it.
func (s *Server) setupCluster() error {
	if s.config.Serf == nil {
		return nil
	}
	c := &cluster{s: s, events: make(chan serf.Event, 256), members: map[string]serverMember{}, reconcile: make(chan struct{}, 1)}
	conf, err := s.serfConfig(c.events)
	if err != nil {
		return err
	}
	c.serf, err = serf.Create(conf)
	if err != nil {
		return fmt.Errorf("server: start gossip: %w", err)
	}
	s.cluster = c
	s.gossip.Store(c)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		c.handleEvents()
	}()
	if len(s.config.Serf.RetryJoin) > 0 {
		s.bg.Add(1)
		go func() {
			defer s.bg.Done()
			c.retryJoin()
		}()
	}
	return nil
}

func (s *Server) serfConfig(events chan serf.Event) (*serf.Config, error) {
	sc, c := s.config.Serf, s.config
	conf := serf.DefaultConfig()
	conf.Init()
	conf.NodeName = c.NodeName + "." + c.Region
	rpcHost, rpcPort, _ := net.SplitHostPort(c.RaftAddr)
	conf.Tags = map[string]string{
		tagRole: roleServer, tagRegion: c.Region, tagDC: c.Datacenter, tagBuild: Build,
		tagVsn: "1", tagRaftVsn: "3", tagID: s.nodeID, tagRPCAddr: rpcHost, tagPort: rpcPort,
	}
	if c.BootstrapExpect > 0 {
		conf.Tags[tagExpect] = strconv.Itoa(c.BootstrapExpect)
	}
	conf.EventCh = events
	ml := memberlist.DefaultLANConfig()
	if sc.Fast {
		ml = memberlist.DefaultLocalConfig()
		ml.ProbeInterval = 200 * time.Millisecond
		ml.ProbeTimeout = 100 * time.Millisecond
		ml.SuspicionMult = 2
		ml.GossipInterval = 50 * time.Millisecond
		conf.ReapInterval = time.Second
		conf.ReconnectInterval = time.Second
	}
	ml.BindAddr, ml.BindPort = sc.BindAddr, sc.BindPort
	if ml.BindAddr == "" {
		ml.BindAddr = "0.0.0.0"
	}
	if sc.AdvertiseAddr != "" {
		ml.AdvertiseAddr = sc.AdvertiseAddr
	}
	ml.DeadNodeReclaimTime = sc.DeadNodeReclaim
	if ml.DeadNodeReclaimTime == 0 {
		ml.DeadNodeReclaimTime = 5 * time.Second
		if sc.Fast {
			ml.DeadNodeReclaimTime = time.Second
		}
	}
	ml.Name = conf.NodeName
	logger := log.New(slogWriter{s.log.With("component", "serf")}, "", 0)
	if s.log.Handler().Enabled(s.ctx, -8) {
		conf.Logger, ml.Logger = logger, logger
	} else {
		quiet := log.New(io.Discard, "", 0)
		conf.Logger, ml.Logger = quiet, quiet
	}
	if c.PeerBlocked != nil {
		t, err := newPartitionableGossip(ml, c.PeerBlocked)
		if err != nil {
			return nil, fmt.Errorf("server: gossip transport: %w", err)
		}
		ml.Transport = t
	}
	conf.MemberlistConfig = ml
	if dir := dataDirUnlessDev(c); dir != "" {
		serfDir := filepath.Join(dir, "server", "serf")
		if err := os.MkdirAll(serfDir, 0o700); err != nil {
			return nil, fmt.Errorf("server: create serf dir: %w", err)
		}
		// The snapshot lets a restarted server rejoin the members it knew.
		conf.SnapshotPath = filepath.Join(serfDir, serfSnapshot)
	}
	return conf, nil
}

// handleEvents follows membership: servers seen, bootstrap, and the
// leader's reconciliation.
func (c *cluster) handleEvents() {
	c.maybeBootstrap()
	for {
		select {
		case <-c.s.shutdownCh:
			return
		case e := <-c.events:
			me, ok := e.(serf.MemberEvent)
			if !ok {
				continue
			}
			c.refreshMembers()
			if me.Type == serf.EventMemberFailed || me.Type == serf.EventMemberLeave {
				for _, m := range me.Members {
					if sm, ok := parseServerMember(m); ok {
						c.s.nackHeldBy(sm.ID)
					}
				}
			}
			c.maybeBootstrap()
			select {
			case c.reconcile <- struct{}{}:
			default:
			}
			c.s.auth.WakeKEKPush()
		}
	}
}

// refreshMembers rebuilds the ID -> server map from serf's member list.
func (c *cluster) refreshMembers() {
	members := map[string]serverMember{}
	for _, m := range c.serf.Members() {
		if sm, ok := parseServerMember(m); ok && sm.Region == c.s.config.Region {
			members[sm.ID] = sm
		}
	}
	c.mu.Lock()
	c.members = members
	c.mu.Unlock()
}

// serverByID returns the member with raft ID id.
func (c *cluster) serverByID(id string) (serverMember, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.members[id]
	return m, ok
}

// servers returns the known servers of this region, sorted by name.
func (c *cluster) servers() []serverMember {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]serverMember, 0, len(c.members))
	for _, m := range c.members {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// parseServerMember reads a member's tags; ok is false for non-servers.
func parseServerMember(m serf.Member) (serverMember, bool) {
	if m.Tags[tagRole] != roleServer || m.Tags[tagID] == "" {
		return serverMember{}, false
	}
	sm := serverMember{
		Name: m.Name, ID: m.Tags[tagID], Region: m.Tags[tagRegion], Datacenter: m.Tags[tagDC],
		Build: m.Tags[tagBuild], Status: m.Status, RPCAddr: m.Tags[tagRPCAddr],
	}
	sm.Expect, _ = strconv.Atoi(m.Tags[tagExpect])
	sm.RaftVersion, _ = strconv.Atoi(m.Tags[tagRaftVsn])
	// Nomad's tags: rpc_addr is the host, port the rpc port. A server
	// bound to every interface gossips 0.0.0.0: others reach its rpc port
	// at the address gossip saw.
	host := m.Tags[tagRPCAddr]
	if host == "" || net.ParseIP(host).IsUnspecified() {
		host = m.Addr.String()
	}
	sm.RPCAddr = net.JoinHostPort(host, m.Tags[tagPort])
	return sm, true
}

// join joins the gossip pool through addrs (host or host:port).
func (c *cluster) join(addrs []string) (int, error) {
	withPorts := make([]string, len(addrs))
	for i, a := range addrs {
		withPorts[i] = withDefaultPort(a, defaultSerf)
	}
	return c.serf.Join(withPorts, true)
}

func withDefaultPort(addr string, port int) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(addr, strconv.Itoa(port))
}

// retryJoin joins the configured addresses until one answers, or
// RetryMax attempts fail.
func (c *cluster) retryJoin() {
	sc := c.s.config.Serf
	interval := sc.RetryInterval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	for attempt := 1; ; attempt++ {
		n, err := c.join(sc.RetryJoin)
		if n > 0 {
			c.s.log.Info("joined the cluster", "contacted", n)
			return
		}
		if sc.RetryMax > 0 && attempt >= sc.RetryMax {
			c.s.log.Error("retry_join: giving up", "attempts", attempt, "error", err)
			return
		}
		c.s.log.Warn("retry_join: no server answered; retrying", "error", err, "in", interval)
		select {
		case <-c.s.shutdownCh:
			return
		case <-time.After(interval):
		}
	}
}

// leave stops gossip without a graceful leave: as with Nomad's default
// (leave_on_terminate = false), a stopped server stays a raft peer and is
// seen as failed until it comes back; `server force-leave` removes it.
func (c *cluster) leave() {
	_ = c.serf.Shutdown()
}

// serverName is the gossip name of raft server id ("" when unknown).
func (s *Server) serverName(id string) string {
	if id == s.nodeID {
		return s.config.NodeName + "." + s.config.Region
	}
	if s.cluster != nil {
		if m, ok := s.cluster.serverByID(id); ok {
			return m.Name
		}
	}
	return ""
}

// SerfAddr is the address this server gossips on ("" without gossip).
func (s *Server) SerfAddr() string {
	if s.cluster == nil {
		return ""
	}
	n := s.cluster.serf.Memberlist().LocalNode()
	return net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))
}

// NodeID is this server's raft identity.
func (s *Server) NodeID() string { return s.nodeID }
