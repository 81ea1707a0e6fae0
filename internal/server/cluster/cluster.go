package cluster

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/memberlist"
	"github.com/hashicorp/raft"
	autopilot "github.com/hashicorp/raft-autopilot"
	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/rpcwire"
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
	// (empty: the bind address, or a private IP when bound to 0.0.0.0);
	// AdvertisePort its port (0: the bound port).
	AdvertiseAddr string
	AdvertisePort int
	// SecretKey encrypts gossip (AES, 16, 24 or 32 bytes; agent
	// server.encrypt): a server without the same key cannot join.
	SecretKey []byte
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

// Member is a gossip member that is a Drover server.
type Member struct {
	Name, ID, Region, Datacenter, RPCAddr, Build string
	Expect, RaftVersion                          int
	Status                                       serf.MemberStatus
}

// Cluster is one server's part of the cluster: its stable identity, raft
// (its stores, and its transport over the shared rpc listener), gossip
// membership, autopilot, and the pool of RPC connections to other servers
// (forwarding, remote workers, stats).
type Cluster struct {
	cfg  Config
	host Host
	log  *slog.Logger

	raft       *raft.Raft
	trans      raft.Transport
	stores     *raftStores
	raftLog    hclog.Logger
	layer      *RaftLayer // raft over the rpc listener; nil otherwise
	startIndex uint64
	pool       *rpcwire.Pool
	leader     leaderWatch

	// Gossip membership; serf is nil while (or when) running without.
	serf    *serf.Serf
	events  chan serf.Event
	mu      sync.Mutex
	members map[string]Member // by ID, as last seen
	// reconcile wakes the leader's member reconciliation (buffered 1).
	reconcile chan struct{}
	// bootstrapped is set once raft has a configuration.
	bootstrapped bool

	autopilot *autopilot.Autopilot // nil without gossip
	apState   autopilotState
}

// Start starts gossip when configured (a lone server skips it) and builds
// autopilot over it. Call it once the Host can take membership events.
func (c *Cluster) Start() error {
	if err := c.startGossip(); err != nil {
		return err
	}
	c.setupAutopilot(c.raftLog)
	return nil
}

// startGossip starts gossip when configured; a lone server skips it.
func (c *Cluster) startGossip() error {
	if c.cfg.Serf == nil {
		return nil
	}
	c.events = make(chan serf.Event, 256)
	conf, err := c.serfConfig(c.events)
	if err != nil {
		return err
	}
	c.serf, err = serf.Create(conf)
	if err != nil {
		return fmt.Errorf("server: start gossip: %w", err)
	}
	c.host.Go("gossip events", c.handleEvents)
	if len(c.cfg.Serf.RetryJoin) > 0 {
		c.host.Go("retry join", c.retryJoin)
	}
	return nil
}

func (c *Cluster) serfConfig(events chan serf.Event) (*serf.Config, error) {
	sc := c.cfg.Serf
	conf := serf.DefaultConfig()
	conf.Init()
	conf.NodeName = c.cfg.NodeName + "." + c.cfg.Region
	rpcHost, rpcPort, _ := net.SplitHostPort(c.cfg.RaftAddr)
	conf.Tags = map[string]string{
		tagRole: roleServer, tagRegion: c.cfg.Region, tagDC: c.cfg.Datacenter, tagBuild: Build,
		tagVsn: "1", tagRaftVsn: "3", tagID: c.cfg.NodeID, tagRPCAddr: rpcHost, tagPort: rpcPort,
	}
	if c.cfg.BootstrapExpect > 0 {
		conf.Tags[tagExpect] = strconv.Itoa(c.cfg.BootstrapExpect)
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
	if sc.AdvertisePort != 0 {
		ml.AdvertisePort = sc.AdvertisePort
	}
	ml.DeadNodeReclaimTime = sc.DeadNodeReclaim
	if ml.DeadNodeReclaimTime == 0 {
		ml.DeadNodeReclaimTime = 5 * time.Second
		if sc.Fast {
			ml.DeadNodeReclaimTime = time.Second
		}
	}
	ml.Name = conf.NodeName
	logger := log.New(slogWriter{c.log.With("component", "serf")}, "", 0)
	if c.log.Handler().Enabled(context.Background(), -8) {
		conf.Logger, ml.Logger = logger, logger
	} else {
		quiet := log.New(io.Discard, "", 0)
		conf.Logger, ml.Logger = quiet, quiet
	}
	if c.cfg.PeerFilter != nil {
		t, err := newPartitionableGossip(ml, c.cfg.PeerFilter)
		if err != nil {
			return nil, fmt.Errorf("server: gossip transport: %w", err)
		}
		ml.Transport = t
	}
	conf.MemberlistConfig = ml
	if err := setupKeyring(c.cfg.dataDirUnlessDev(), sc.SecretKey, conf, c.log.Warn); err != nil {
		return nil, err
	}
	if dir := c.cfg.dataDirUnlessDev(); dir != "" {
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
func (c *Cluster) handleEvents(ctx context.Context) {
	c.maybeBootstrap(ctx)
	for {
		select {
		case <-ctx.Done():
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
						c.host.ServerFailed(sm.ID)
					}
				}
			}
			c.maybeBootstrap(ctx)
			select {
			case c.reconcile <- struct{}{}:
			default:
			}
			c.host.MembersChanged()
		}
	}
}

// refreshMembers rebuilds the ID -> server map from serf's member list.
func (c *Cluster) refreshMembers() {
	members := map[string]Member{}
	for _, m := range c.serf.Members() {
		if sm, ok := parseServerMember(m); ok && sm.Region == c.cfg.Region {
			members[sm.ID] = sm
		}
	}
	c.mu.Lock()
	c.members = members
	c.mu.Unlock()
}

// ServerByID returns the server with raft ID id, as gossip last saw it
// (false without gossip).
func (c *Cluster) ServerByID(id string) (Member, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.members[id]
	return m, ok
}

// Servers returns the known servers of this region, sorted by name (none
// without gossip).
func (c *Cluster) Servers() []Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Member, 0, len(c.members))
	for _, m := range c.members {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// parseServerMember reads a member's tags; ok is false for non-servers.
func parseServerMember(m serf.Member) (Member, bool) {
	if m.Tags[tagRole] != roleServer || m.Tags[tagID] == "" {
		return Member{}, false
	}
	sm := Member{
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

// Join joins the gossip pool through addrs (host or host:port); gossip
// must be on (HasGossip).
func (c *Cluster) Join(addrs []string) (int, error) {
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
func (c *Cluster) retryJoin(ctx context.Context) {
	sc := c.cfg.Serf
	interval := sc.RetryInterval
	if interval <= 0 {
		interval = 30 * time.Second
	}
	for attempt := 1; ; attempt++ {
		n, err := c.Join(sc.RetryJoin)
		if n > 0 {
			c.log.Info("joined the cluster", "contacted", n)
			return
		}
		if sc.RetryMax > 0 && attempt >= sc.RetryMax {
			c.log.Error("retry_join: giving up", "attempts", attempt, "error", err)
			return
		}
		c.log.Warn("retry_join: no server answered; retrying", "error", err, "in", interval)
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// Leave stops gossip without a graceful leave: as with Nomad's default
// (leave_on_terminate = false), a stopped server stays a raft peer and is
// seen as failed until it comes back; `server force-leave` removes it.
func (c *Cluster) Leave() {
	if c.serf != nil {
		_ = c.serf.Shutdown()
	}
}

// GracefulLeave broadcasts this server's leave to the gossip pool and
// waits for it to spread (serf's broadcast timeout), so the others see it
// as left, not failed.
func (c *Cluster) GracefulLeave() {
	if c.serf != nil {
		if err := c.serf.Leave(); err != nil {
			c.log.Warn("gossip leave", "error", err)
		}
	}
}

// HasGossip reports whether this server runs gossip (not in dev mode nor
// as a lone in-process server).
func (c *Cluster) HasGossip() bool { return c.serf != nil }

// Members is every gossip member this server sees, servers or not (none
// without gossip).
func (c *Cluster) Members() []serf.Member {
	if c.serf == nil {
		return nil
	}
	return c.serf.Members()
}

// RemoveFailedNode marks a failed gossip member as left (prune: and
// forgets it at once), which removes it from raft; gossip must be on.
func (c *Cluster) RemoveFailedNode(name string, prune bool) error {
	if prune {
		return c.serf.RemoveFailedNodePrune(name)
	}
	return c.serf.RemoveFailedNode(name)
}

// ServerName is the gossip name of raft server id ("" when unknown).
func (c *Cluster) ServerName(id string) string {
	if id == c.cfg.NodeID {
		return c.cfg.NodeName + "." + c.cfg.Region
	}
	if m, ok := c.ServerByID(id); ok {
		return m.Name
	}
	return ""
}

// SerfAddr is the address this server gossips on ("" without gossip).
func (c *Cluster) SerfAddr() string {
	if c.serf == nil {
		return ""
	}
	n := c.serf.Memberlist().LocalNode()
	return net.JoinHostPort(n.Addr.String(), strconv.Itoa(int(n.Port)))
}

// NodeID is this server's raft identity.
func (c *Cluster) NodeID() string { return c.cfg.NodeID }

// slogWriter forwards raft's and serf's log lines into our structured log.
type slogWriter struct{ log *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Warn(strings.TrimSpace(string(p)))
	return len(p), nil
}
