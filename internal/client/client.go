package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"sync"

	"github.com/drover-project/drover/internal/client/allocnet"
	"github.com/drover-project/drover/internal/client/allocrunner"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/builtin"
	"github.com/drover-project/drover/internal/client/fingerprint"
	"github.com/drover-project/drover/internal/client/state"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Client is a running client agent.
type Client struct {
	cfg      *Config
	clock    clock.Clock
	logger   *slog.Logger
	servers  Servers
	drivers  *drivers.Registry
	store    *state.Store
	nodeID   string
	secretID string
	rand     *rand.Rand // heartbeat jitter; seeded from the node ID

	mu      sync.Mutex
	node    *structs.Node
	fp      *fingerprint.Result
	runners map[string]*allocrunner.Runner
	// dynamicMeta is the metadata set through the API (see node_meta.go).
	dynamicMeta map[string]*string
	hb          heartbeatState

	batch     *updateBatcher
	services  *serviceRegistrar // nil when the servers keep no service catalog
	hostStats hostStatsCollector
	contact   contactTracker // last server contact, for stop_on_client_after
	// networks makes the allocs' network namespaces; netManager is the
	// allocnet behind it (nil: the client is not root, or a test's).
	networks   allocrunner.Networks
	netManager *allocnet.Manager

	ctx          context.Context // canceled on Shutdown: ends in-flight calls
	cancel       context.CancelFunc
	registered   chan struct{} // closed after the first successful register
	regOnce      sync.Once
	reregisterCh chan struct{}
	wg           sync.WaitGroup
	shutOnce     sync.Once
}

// New starts a client: it builds the drivers, fingerprints, restores the
// allocs an earlier client left (re-attaching to their tasks), and starts
// the register/heartbeat, fingerprint, alloc sync and update loops.
func New(cfg *Config) (*Client, error) {
	if cfg == nil || cfg.Servers == nil {
		return nil, errors.New("client: Servers is required")
	}
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg, clock: cfg.Clock, logger: cfg.Logger.With("component", "client"), servers: cfg.Servers,
		runners: map[string]*allocrunner.Runner{}, registered: make(chan struct{}), reregisterCh: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.noteContact() // the disconnect clock starts now, before any contact
	var err error
	if c.nodeID, c.secretID, err = nodeIdentity(cfg.DataDir, cfg.NodeID); err != nil {
		return nil, fmt.Errorf("client node id: %w", err)
	}
	c.rand = rand.New(rand.NewPCG(seedOf(c.nodeID), 0))
	if c.drivers, err = c.buildDrivers(); err != nil {
		return nil, err
	}
	c.buildNetworks()
	fp, err := c.fingerprint()
	if err != nil {
		return nil, err
	}
	if c.store, err = state.Open(cfg.StateDir); err != nil {
		return nil, err
	}
	if c.dynamicMeta, err = c.store.DynamicMeta(); err != nil {
		c.store.Close()
		return nil, fmt.Errorf("client node metadata: %w", err)
	}
	c.fp, c.node = fp, c.buildNode(fp)
	c.batch = newUpdateBatcher(c)
	if catalog, ok := cfg.Servers.(ServiceCatalog); ok {
		c.services = newServiceRegistrar(c, catalog)
		c.start(func() { c.services.loop() })
	}
	c.restore()
	c.sweepNetworks()
	c.start(func() { c.heartbeatLoop() }, func() { c.fingerprintLoop() }, func() { c.allocSyncLoop() }, func() { c.batch.loop() })
	if cfg.GC.Interval > 0 {
		c.start(c.gcLoop)
	}
	return c, nil
}

func (c *Client) start(loops ...func()) {
	for _, f := range loops {
		c.wg.Go(f)
	}
}

func seedOf(id string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(id); i++ {
		h = (h ^ uint64(id[i])) * 1099511628211
	}
	return h
}

func (c *Client) buildDrivers() (*drivers.Registry, error) {
	if c.cfg.Drivers != nil {
		return c.cfg.Drivers, nil
	}
	plugins := map[string]map[string]any{}
	for k, v := range c.cfg.Plugins {
		plugins[k] = v
	}
	if c.cfg.DevMode && plugins["raw_exec"] == nil {
		plugins["raw_exec"] = map[string]any{"enabled": true}
	}
	r, err := builtin.NewRegistry(plugins, drivers.Env{Logger: c.cfg.Logger, Clock: c.clock}, c.cfg.DevMode)
	if err != nil {
		return nil, fmt.Errorf("client drivers: %w", err)
	}
	return r, nil
}

func (c *Client) fingerprint() (*fingerprint.Result, error) {
	fc := fingerprint.Config{DataDir: c.cfg.DataDir, NetworkInterface: c.cfg.NetworkInterface,
		CPUTotalCompute: c.cfg.CPUTotalCompute, MemoryTotalMB: c.cfg.MemoryTotalMB, Drivers: c.drivers}
	if fc.DataDir == "" {
		fc.DataDir = c.cfg.AllocDir
	}
	fp := fingerprint.Fingerprint
	if c.cfg.Fingerprint != nil {
		fp = func(_ context.Context, cfg fingerprint.Config) (*fingerprint.Result, error) {
			return c.cfg.Fingerprint(cfg)
		}
	}
	r, err := fp(c.ctx, fc)
	if err != nil {
		return nil, err
	}
	c.addAgentAttributes(r)
	if c.cfg.MinDynamicPort > 0 && r.Resources != nil {
		r.Resources.MinDynamicPort, r.Resources.MaxDynamicPort = c.cfg.MinDynamicPort, c.cfg.MaxDynamicPort
	}
	if c.cfg.Fingerprint == nil {
		maps.Copy(r.Attributes, c.cniAttributes(c.ctx))
	}
	return r, nil
}

// addAgentAttributes adds what the agent, not the machine, tells about the
// node: Nomad's nomad.* attributes.
func (c *Client) addAgentAttributes(r *fingerprint.Result) {
	if r.Attributes == nil {
		r.Attributes = map[string]string{}
	}
	if c.cfg.Version != "" {
		r.Attributes["nomad.version"] = c.cfg.Version
	}
	if c.cfg.HTTPAddr != "" {
		r.Attributes["nomad.advertise.address"] = c.cfg.HTTPAddr
	}
}

// NodeID is the node's ID.
func (c *Client) NodeID() string { return c.nodeID }

// Node returns a copy of the node as last registered (or about to be).
func (c *Client) Node() *structs.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.node.Copy()
}

// Drivers is the client's driver registry.
func (c *Client) Drivers() *drivers.Registry { return c.drivers }

// Shutdown stops the client's loops and alloc runners but leaves their
// tasks running, so the next client on this data dir re-attaches; pending
// status updates get one last send.
func (c *Client) Shutdown() error {
	var err error
	c.shutOnce.Do(func() {
		c.cancel()
		c.wg.Wait()
		// In parallel: each runner waits for its loop and its tasks' log
		// flushes, and a client may hold tens of thousands.
		var wg sync.WaitGroup
		for _, r := range c.allRunners() {
			wg.Go(r.Shutdown)
		}
		wg.Wait()
		c.batch.flushFinal()
		err = c.store.Close()
	})
	return err
}

// Destroy stops every alloc (killing its tasks at once, without their
// shutdown_delay: the agent is going away, not the allocs), then shuts
// down. For tests and dev agents, whose tasks should not outlive them.
func (c *Client) Destroy() error {
	if c.ctx.Err() != nil {
		return nil // shut down already: its tasks belong to the next client
	}
	// Nothing outlives a destroyed client, so recording each task's death
	// would only slow the kill of thousands of allocs down.
	c.store.DiscardWrites()
	var wg sync.WaitGroup
	for _, r := range c.allRunners() {
		wg.Go(func() { r.StopNow(); <-r.Done() })
	}
	wg.Wait()
	return c.Shutdown()
}

func (c *Client) allRunners() []*allocrunner.Runner {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*allocrunner.Runner, 0, len(c.runners))
	for _, r := range c.runners {
		out = append(out, r)
	}
	return out
}
