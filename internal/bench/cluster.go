package bench

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// The comparison shape: every node 4 cores x 3500 MHz, 32000 MB; every
// task 100 MHz / 64 MB with a 300 MB group disk.
const (
	nodeCPU  = 4 * 3500
	nodeMem  = 32000
	nodeDisk = 100_000
	taskCPU  = 100
	taskMem  = 64
	taskDisk = 300
)

// numSchedulers matches the setup (and Nomad's on a 2-core box).
const numSchedulers = 2

// registerers is how many goroutines register nodes: raft batches
// concurrent applies, so this is much faster than one at a time.
const registerers = 16

var serverSeq atomic.Int64

// Cluster is a dev server (or several real ones) with simulated nodes.
type Cluster struct {
	// Srv is the leader: jobs are registered and state read there.
	Srv   *server.Server
	Nodes []*structs.Node
	// ServerNames are a real cluster's servers, leader first: each one's
	// pprof label server=NAME (empty for a dev server).
	ServerNames []string
	close       func()
}

// StartCluster starts a leader with n ready nodes registered.
func StartCluster(n int) (*Cluster, error) { return StartServers(n, 1) }

// StartServers starts n nodes on one in-memory dev server (servers <= 1)
// or on a cluster of that many real servers (on-disk raft, loopback TCP).
func StartServers(n, servers int) (*Cluster, error) {
	return startCluster(Spec{Nodes: n, Servers: servers})
}

// startCluster starts the spec's servers and nodes.
func startCluster(spec Spec) (*Cluster, error) {
	n, servers := spec.Nodes, spec.Servers
	c := &Cluster{}
	if servers <= 1 {
		srv, err := startServer(spec)
		if err != nil {
			return nil, err
		}
		c.Srv, c.close = srv, func() { _ = srv.Shutdown() }
	} else {
		srvs, names, cleanup, err := startServers(servers, spec)
		if err != nil {
			return nil, err
		}
		c.Srv, c.ServerNames, c.close = srvs[0], names, cleanup
	}
	if err := c.AddNodes(n); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// schedulers is the workers each server runs.
func (s Spec) schedulers() int {
	if s.Schedulers > 0 {
		return s.Schedulers
	}
	return numSchedulers
}

// jobMaxCount lets the servers take the spec's biggest group (scenario c
// asks for 50,000 allocs in one group, above the server default).
func (s Spec) jobMaxCount() int { return max(server.DefaultJobMaxCount, s.Count) }

// startServer starts a dev server and waits until it leads with its
// pipeline enabled (the broker refuses evals before that).
func startServer(spec Spec) (*server.Server, error) {
	srv, err := server.New(&server.Config{
		NodeName: "bench", DevMode: true, NumSchedulers: spec.schedulers(), SerialPlanApply: spec.SerialPlans,
		JobMaxCount: spec.jobMaxCount(),
		RaftAddr:    fmt.Sprintf("bench-%d", serverSeq.Add(1)),
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, err
	}
	if err := srv.WaitForLeader(10 * time.Second); err != nil {
		srv.Shutdown()
		return nil, err
	}
	// The leader pauses some workers as the last step before its duties
	// start, so a paused worker means the pipeline is enabled.
	err = waitUntil(10*time.Second, time.Millisecond, func() bool {
		st := srv.Stats()
		return st.IsLeader && st.Paused > 0
	})
	if err != nil {
		srv.Shutdown()
		return nil, fmt.Errorf("server never became an active leader: %w", err)
	}
	return srv, nil
}

// Close shuts the servers down.
func (c *Cluster) Close() { c.close() }

// AddNodes registers n more nodes concurrently.
func (c *Cluster) AddNodes(n int) error {
	nodes := make([]*structs.Node, n)
	for i := range nodes {
		nodes[i] = NewNode(len(c.Nodes) + i)
	}
	err := parallel(n, registerers, func(i int) error {
		_, err := c.Srv.RegisterNode(nodes[i])
		return err
	})
	if err != nil {
		return fmt.Errorf("register nodes: %w", err)
	}
	c.Nodes = append(c.Nodes, nodes...)
	return nil
}

// NewNode returns the i-th simulated node: ready, eligible, with a healthy
// exec driver and the comparison shape's resources.
func NewNode(i int) *structs.Node {
	id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
	return &structs.Node{
		ID: id, SecretID: server.NewUUID(), Name: fmt.Sprintf("bench-node-%d", i),
		Datacenter: "dc1", NodePool: "default",
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{"driver.exec": "1", "kernel.name": "linux", "cpu.numcores": "4"},
		Drivers:    map[string]*structs.DriverInfo{"exec": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{
			CPU:      structs.NodeCPUResources{CpuShares: nodeCPU},
			MemoryMB: nodeMem, DiskMB: nodeDisk,
		},
	}
}

// NewJob returns a service job of one group of count tasks in the
// comparison shape: no ports, no update block.
func NewJob(id string, count int) *structs.Job {
	return &structs.Job{
		ID: id, Name: id, Type: structs.JobTypeService, Datacenters: []string{"dc1"}, Priority: 50,
		TaskGroups: []*structs.TaskGroup{{
			Name: "g", Count: count,
			EphemeralDisk: &structs.EphemeralDisk{SizeMB: taskDisk},
			Tasks: []*structs.Task{{
				Name: "t", Driver: "exec", Config: map[string]any{"command": "/bin/sleep", "args": []any{"1000"}},
				Resources: &structs.Resources{CPU: taskCPU, MemoryMB: taskMem},
			}},
		}},
	}
}

// parallel runs fn(0..n-1) on up to workers goroutines and returns the
// first error.
func parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// waitUntil polls cond every interval until it holds or timeout passes.
func waitUntil(timeout, interval time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", timeout)
		}
		time.Sleep(interval)
	}
	return nil
}
