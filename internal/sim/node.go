package sim

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// NodeSpec describes a simulated client node.
type NodeSpec struct {
	Name       string
	Datacenter string // default dc1
	Pool       string // default "default"
	Class      string
	CPU        int64 // MHz, default 4000
	MemoryMB   int64 // default 8192
	DiskMB     int64 // default 100000
	Meta       map[string]string
	Attributes map[string]string
}

func (n NodeSpec) withDefaults() NodeSpec {
	if n.Datacenter == "" {
		n.Datacenter = "dc1"
	}
	if n.Pool == "" {
		n.Pool = structs.DefaultNodePool
	}
	if n.CPU == 0 {
		n.CPU = 4000
	}
	if n.MemoryMB == 0 {
		n.MemoryMB = 8192
	}
	if n.DiskMB == 0 {
		n.DiskMB = 100_000
	}
	return n
}

// Node is a simulated client: it registers, heartbeats at its TTL unless
// told to miss, and reports its allocations' client status. It runs no
// driver: "running" is whatever it reports.
type Node struct {
	Name     string
	ID       string
	SecretID string

	sim  *Sim
	mu   sync.Mutex
	spec NodeSpec
	// silent nodes neither heartbeat nor report: a partition or a crash.
	silent   bool
	ttl      time.Duration
	nextBeat time.Time
	index    uint64 // last alloc index seen (real-time watch)
}

// structsNode is the node as the client fingerprints it.
func (n *Node) structsNode() *structs.Node {
	n.mu.Lock()
	defer n.mu.Unlock()
	sp := n.spec
	attrs := map[string]string{"kernel.name": "linux", "driver.mock": "1", "unique.hostname": sp.Name}
	maps.Copy(attrs, sp.Attributes)
	return &structs.Node{
		ID: n.ID, SecretID: n.SecretID, Name: sp.Name, Datacenter: sp.Datacenter, NodePool: sp.Pool,
		NodeClass: sp.Class, Attributes: attrs, Meta: maps.Clone(sp.Meta),
		Drivers:       map[string]*structs.DriverInfo{"mock": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{CPU: structs.NodeCPUResources{CpuShares: sp.CPU}, MemoryMB: sp.MemoryMB, DiskMB: sp.DiskMB},
		Status:        structs.NodeStatusReady,
	}
}

// AddNode registers a simulated node and runs the cluster to idle.
func (s *Sim) AddNode(spec NodeSpec) (*Node, error) {
	spec = spec.withDefaults()
	s.mu.Lock()
	if _, dup := s.nodes[spec.Name]; dup {
		s.mu.Unlock()
		return nil, fmt.Errorf("sim: node %q added twice", spec.Name)
	}
	id := nodeID(s.seed, spec.Name)
	n := &Node{Name: spec.Name, ID: id, SecretID: "secret-" + id, sim: s, spec: spec}
	s.nodes[spec.Name] = n
	s.mu.Unlock()
	if err := n.register(); err != nil {
		return nil, err
	}
	if s.opts.Realtime {
		s.startNodeLoop(n)
	}
	return n, s.RunUntilIdle()
}

// register (re-)registers the node with its current fingerprint.
func (n *Node) register() error {
	resp, err := server.NodeRegister.Call(context.Background(), n.sim.srv, &structs.NodeRegisterArgs{Node: n.structsNode()})
	if err != nil {
		return fmt.Errorf("sim: register node %s: %w", n.Name, err)
	}
	n.armBeat(resp.HeartbeatTTL)
	return nil
}

func (n *Node) armBeat(ttl time.Duration) {
	n.mu.Lock()
	n.ttl, n.nextBeat = ttl, n.sim.Now().Add(ttl)
	n.mu.Unlock()
}

// heartbeat tells the server the node is alive (which brings a down node
// back to ready, with its node-update evals).
func (n *Node) heartbeat() error {
	resp, err := server.NodeUpdateStatus.Call(context.Background(), n.sim.srv, &structs.NodeHeartbeatArgs{NodeID: n.ID, SecretID: n.SecretID, Status: structs.NodeStatusReady})
	if err != nil {
		return fmt.Errorf("sim: heartbeat node %s: %w", n.Name, err)
	}
	n.armBeat(resp.HeartbeatTTL)
	return nil
}

func (n *Node) isSilent() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.silent
}

func (n *Node) setSilent(v bool) {
	n.mu.Lock()
	n.silent = v
	n.mu.Unlock()
}

// beatDue returns when the node next heartbeats; ok is false if it is
// silent.
func (n *Node) beatDue() (time.Time, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.nextBeat, !n.silent && !n.nextBeat.IsZero()
}

// report pulls the node's allocs and reports whatever changed on the
// client side; it returns whether it sent anything.
func (n *Node) report(ctx context.Context, minIndex uint64, wait time.Duration) (bool, error) {
	if n.isSilent() {
		return false, nil
	}
	resp, err := server.NodeGetClientAllocs.Call(ctx, n.sim.srv, &structs.NodeAllocsArgs{
		NodeID: n.ID, SecretID: n.SecretID, QueryOptions: structs.QueryOptions{MinQueryIndex: minIndex, MaxQueryTime: wait},
	})
	if err != nil {
		return false, fmt.Errorf("sim: node %s allocs: %w", n.Name, err)
	}
	n.mu.Lock()
	n.index = resp.Index
	n.mu.Unlock()
	var updates []*structs.Allocation
	for _, a := range resp.Allocs {
		if u := n.sim.clientUpdate(a); u != nil {
			updates = append(updates, u)
		}
	}
	if len(updates) == 0 || n.isSilent() {
		return false, nil
	}
	return true, n.send(updates)
}

func (n *Node) send(updates []*structs.Allocation) error {
	_, err := server.NodeUpdateAlloc.Call(context.Background(), n.sim.srv, &structs.AllocClientUpdateArgs{NodeID: n.ID, SecretID: n.SecretID, Allocs: updates})
	if err != nil {
		return fmt.Errorf("sim: node %s update allocs: %w", n.Name, err)
	}
	return nil
}

// sweepNodes has every node report once, in name order. After each node
// that sent something the server settles, so the leader's reactions
// (the deployment watcher counting health) see one node's report at a
// time, as they would in every run.
func (s *Sim) sweepNodes() (bool, error) {
	any := false
	for _, n := range s.sortedNodes() {
		sent, err := n.report(context.Background(), 0, 0)
		if err != nil {
			return any, err
		}
		if sent {
			any = true
			if err := s.settle(); err != nil {
				return any, err
			}
		}
	}
	return any, nil
}
