package cluster

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/rpcwire"
)

// New opens raft's stores, starts raft over them with fsm and bootstraps a
// single-voter cluster when this server is meant to form one. Gossip and
// autopilot start with Start. cfg.NodeID must be set (LoadOrCreateNodeID).
func New(cfg Config, host Host, fsm raft.FSM) (*Cluster, error) {
	c := &Cluster{cfg: cfg, host: host, log: cfg.Logger, pool: rpcwire.NewPool(),
		members: map[string]Member{}, reconcile: make(chan struct{}, 1)}
	c.pool.TLS = cfg.RPCClientTLS
	c.pool.DialTimeout = cfg.PeerDialTimeout
	if cfg.PeerFilter != nil {
		c.pool.Dial = filterDialer(cfg.PeerFilter)
	}
	hlog := hclog.New(&hclog.LoggerOptions{Name: "raft", Level: hclog.Warn, Output: slogWriter{c.log.With("component", "raft")}, DisableTime: true})
	c.raftLog = hlog
	stores, err := openRaftStores(&c.cfg, hlog)
	if err != nil {
		return nil, err
	}
	c.stores = stores
	if err := c.setupRaftTransport(hlog); err != nil {
		stores.Close()
		return nil, err
	}
	if c.startIndex, err = lastCommandIndex(stores.logs); err != nil {
		stores.Close()
		return nil, fmt.Errorf("server: read raft log: %w", err)
	}
	r, err := raft.NewRaft(raftConfig(&c.cfg, c.cfg.NodeID, hlog), fsm, stores.logs, stores.stable, stores.snaps, c.trans)
	if err != nil {
		stores.Close()
		return nil, fmt.Errorf("server: start raft: %w", err)
	}
	c.raft = r
	stores.started(r)
	if err := bootstrapIfNew(&c.cfg, c.cfg.NodeID, r, c.trans); err != nil {
		return nil, err
	}
	host.Go("leader watch", c.watchLeader)
	return c, nil
}

// Shutdown stops raft, closes its transport, the peer connection pool and
// raft's stores. Call Leave first, and wait for every goroutine that may
// still propose.
func (c *Cluster) Shutdown() error {
	var err error
	if c.raft != nil {
		err = c.raft.Shutdown().Error()
	}
	if t, ok := c.trans.(interface{ Close() error }); ok {
		_ = t.Close()
	}
	_ = c.pool.Close()
	if c.stores != nil {
		err = errors.Join(err, c.stores.Close())
	}
	return err
}

// Raft is this server's raft.
func (c *Cluster) Raft() *raft.Raft { return c.raft }

// StartIndex is the index of the last FSM command in the log at start (0
// for none): nothing is answered locally until the FSM has applied it.
func (c *Cluster) StartIndex() uint64 { return c.startIndex }

// LogStore is raft's log store (tests read entries back from it).
func (c *Cluster) LogStore() raft.LogStore { return c.stores.logs }

// SnapshotStore is raft's snapshot store (operator snapshot save reads
// the newest).
func (c *Cluster) SnapshotStore() raft.SnapshotStore { return c.stores.snaps }

// Pool is the pool of RPC connections to other servers. Prefer PeerRPC,
// which honours Config.PeerFilter.
func (c *Cluster) Pool() *rpcwire.Pool { return c.pool }

// RaftLayer is raft's stream layer over the rpc listener, which hands it
// raft connections (nil unless Config.RaftNetwork; nil-safe).
func (c *Cluster) RaftLayer() *RaftLayer {
	if c == nil {
		return nil
	}
	return c.layer
}

// raftStores are the three stores raft needs, plus what to close on shutdown.
type raftStores struct {
	logs    raft.LogStore
	stable  raft.StableStore
	snaps   raft.SnapshotStore
	closers []io.Closer
	devLog  *devLog // the in-memory log of a dev server, else nil
}

var (
	_ raft.LogStore      = (*devLog)(nil)
	_ raft.SnapshotStore = (*devSnapshots)(nil)
)

// started tells the stores raft runs on them: a dev log may now ask raft
// for snapshots.
func (r *raftStores) started(rf *raft.Raft) {
	if r.devLog != nil {
		r.devLog.start(func() error { return rf.Snapshot().Error() })
	}
}

func (r *raftStores) Close() error {
	var errs []error
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// openRaftStores returns in-memory stores in dev mode and on-disk ones
// (the log and stable store of openLogStore and file snapshots under
// DataDir/server/raft) otherwise, so a restarted server keeps every
// acknowledged write.
func openRaftStores(c *Config, logger hclog.Logger) (*raftStores, error) {
	if c.DevMode {
		mem := raft.NewInmemStore()
		snaps := &devSnapshots{}
		logs := newDevLog(mem, snaps)
		return &raftStores{logs: logs, stable: mem, snaps: snaps, devLog: logs}, nil
	}
	if c.DataDir == "" {
		return nil, errors.New("server: data_dir is required outside dev mode")
	}
	dir := filepath.Join(c.DataDir, "server", "raft")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("server: create raft dir: %w", err)
	}
	stores, err := openLogStore(dir, c.RaftLogStore, logger)
	if err != nil {
		return nil, err
	}
	snaps, err := raft.NewFileSnapshotStoreWithLogger(dir, 2, logger)
	if err != nil {
		stores.Close()
		return nil, fmt.Errorf("server: open snapshot store: %w", err)
	}
	stores.snaps = snaps
	return stores, nil
}

// raftConfig returns raft's config for this server.
func raftConfig(c *Config, nodeID string, logger hclog.Logger) *raft.Config {
	rc := raft.DefaultConfig()
	// Protocol 3: servers are known by their stable ID, not their address.
	rc.ProtocolVersion = 3
	rc.LocalID = raft.ServerID(nodeID)
	rc.Logger = logger
	// Snapshot often enough that a restart replays little log, rarely
	// enough that snapshots cost little.
	rc.SnapshotThreshold = 8192
	rc.SnapshotInterval = 2 * time.Minute
	// Followers learn the commit index on the next append or heartbeat;
	// raft's default waits up to 50 ms for it when idle. Followers' workers
	// wait for their state to reach the eval they dequeued, so a shorter
	// wait keeps scheduling on followers fast (cheap on a LAN).
	rc.CommitTimeout = 10 * time.Millisecond
	// Group commit: raft's leader loop writes (and fsyncs) everything
	// proposed while it wrote the previous batch, but with an unbuffered
	// apply channel a proposer blocks for that whole write. The plan
	// applier proposes from one goroutine, so it got one plan into each
	// fsync (about 180 plans/s on 3 servers); buffered, it keeps proposing
	// while the leader writes, and the next batch takes them all.
	rc.BatchApplyCh = true
	if c.DevMode {
		// A dev server has no followers to catch up and never restarts
		// from its log: keep only a few entries past a snapshot, which
		// the dev log takes by bytes (dev_log.go).
		rc.TrailingLogs = devTrailingLogs
	}
	t := c.RaftTimings
	if t == nil && c.DevMode {
		// One voter needs no failure detection: become leader at once.
		t = &RaftTimings{Heartbeat: 50 * time.Millisecond, Election: 50 * time.Millisecond,
			LeaderLease: 50 * time.Millisecond, Commit: 5 * time.Millisecond}
	}
	if t != nil {
		rc.HeartbeatTimeout, rc.ElectionTimeout = t.Heartbeat, t.Election
		rc.LeaderLeaseTimeout, rc.CommitTimeout = t.LeaderLease, t.Commit
	}
	return rc
}

// bootstrapIfNew bootstraps a single-voter cluster when this server is
// meant to form one and raft has no state yet.
func bootstrapIfNew(c *Config, nodeID string, r *raft.Raft, trans raft.Transport) error {
	if !c.DevMode && c.BootstrapExpect != 1 {
		return nil // several servers bootstrap together once they see each other (bootstrap.go)
	}
	cfg := raft.Configuration{Servers: []raft.Server{{
		ID: raft.ServerID(nodeID), Address: trans.LocalAddr(),
	}}}
	err := r.BootstrapCluster(cfg).Error()
	if errors.Is(err, raft.ErrCantBootstrap) {
		return nil // existing state: the configuration is already in the log
	}
	return err
}

// lastCommandIndex is the index of the last FSM command in the log (0 for
// none): a restarted server has replayed its log once the FSM applied it.
// Later entries (no-ops, barriers, configurations) never reach the FSM.
func lastCommandIndex(logs raft.LogStore) (uint64, error) {
	first, err := logs.FirstIndex()
	if err != nil {
		return 0, err
	}
	last, err := logs.LastIndex()
	if err != nil {
		return 0, err
	}
	for i := last; i >= first && i > 0; i-- {
		var l raft.Log
		if err := logs.GetLog(i, &l); err != nil {
			return 0, err
		}
		if l.Type == raft.LogCommand {
			return i, nil
		}
	}
	return 0, nil
}

// dataDirUnlessDev is where a server keeps its state: nowhere in dev mode.
func (c *Config) dataDirUnlessDev() string {
	if c.DevMode {
		return ""
	}
	return c.DataDir
}

// setupRaftTransport picks raft's transport: the configured one, raft over
// the shared rpc listener (RaftNetwork: ServeRPC hands raft connections to
// it), or an in-memory one for a lone in-process server.
func (cl *Cluster) setupRaftTransport(logger hclog.Logger) error {
	c := &cl.cfg
	switch {
	case c.RaftTransport != nil:
		cl.trans = c.RaftTransport
	case c.RaftNetwork:
		addr, err := net.ResolveTCPAddr("tcp", c.RaftAddr)
		if err != nil {
			return fmt.Errorf("server: raft address %q: %w", c.RaftAddr, err)
		}
		cl.layer = newRaftLayer(addr, c.PeerFilter)
		cl.layer.tls = c.RPCClientTLS
		cl.trans = raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
			Stream:                cl.layer,
			MaxPool:               3,
			Timeout:               10 * time.Second,
			Logger:                logger,
			ServerAddressProvider: serverAddressProvider{cl},
		})
	default:
		_, cl.trans = raft.NewInmemTransport(raft.ServerAddress(c.RaftAddr))
	}
	return nil
}

// serverAddressProvider resolves a raft server ID to the address its
// server currently gossips, so a server that restarted on another address
// is reached there even before the configuration is updated.
// Gossip's members are read under their lock (empty until gossip starts),
// as raft resolves addresses on its own goroutines from before Start.
type serverAddressProvider struct{ c *Cluster }

var _ raft.ServerAddressProvider = serverAddressProvider{}

func (p serverAddressProvider) ServerAddr(id raft.ServerID) (raft.ServerAddress, error) {
	if m, ok := p.c.ServerByID(string(id)); ok {
		return raft.ServerAddress(m.RPCAddr), nil
	}
	return "", fmt.Errorf("server %s not known to gossip", id)
}

// RaftFootprint is what raft's stores hold: on a dev server, whose log
// and snapshots live in memory, heap (benchmarks read it; it walks the
// whole log).
type RaftFootprint struct {
	LogEntries    int   // entries in the log store
	LogBytes      int64 // bytes of their payloads
	SnapshotBytes int64 // size of the newest snapshot, 0 for none
}

// RaftFootprint reads what raft's stores hold.
func (c *Cluster) RaftFootprint() (RaftFootprint, error) {
	var f RaftFootprint
	first, err := c.stores.logs.FirstIndex()
	if err != nil {
		return f, err
	}
	last, err := c.stores.logs.LastIndex()
	if err != nil {
		return f, err
	}
	for i := first; i <= last && first > 0; i++ {
		var l raft.Log
		if err := c.stores.logs.GetLog(i, &l); err != nil {
			continue // compacted away meanwhile
		}
		f.LogEntries++
		f.LogBytes += int64(len(l.Data) + len(l.Extensions))
	}
	if list, err := c.stores.snaps.List(); err == nil && len(list) > 0 {
		f.SnapshotBytes = list[0].Size
	}
	return f, nil
}
