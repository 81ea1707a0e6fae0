package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/rpcclient"
	"github.com/drover-project/drover/internal/structs"
)

// Simulated node capacity: room for 40 load tasks (100 MHz / 64 MB).
const (
	simNodeCPU = 4000
	simNodeMem = 4096
)

// simNodes are client nodes simulated over the real client RPC: they
// register and heartbeat (failing over between servers), and a flap stops
// a node's heartbeats long enough that the leader marks it down.
type simNodes struct {
	rpc   *rpcclient.Client // under mu: a partition swaps it
	nodes []*structs.Node
	mu    sync.Mutex
	quiet map[int]time.Time // heartbeats suspended until
	done  chan struct{}
	wg    sync.WaitGroup
}

func startSimNodes(servers []string, n int) (*simNodes, error) {
	c, err := rpcclient.New(servers)
	if err != nil {
		return nil, err
	}
	s := &simNodes{rpc: c, quiet: map[int]time.Time{}, done: make(chan struct{})}
	for i := 0; i < n; i++ {
		node := simNode(i)
		if err := s.register(node); err != nil {
			return nil, fmt.Errorf("register node %d: %w", i, err)
		}
		s.nodes = append(s.nodes, node)
	}
	for i := range s.nodes {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.heartbeat(i)
		}()
	}
	return s, nil
}

func simNode(i int) *structs.Node {
	return &structs.Node{
		ID: fmt.Sprintf("00000000-0000-4000-9000-%012d", i), SecretID: fmt.Sprintf("00000000-0000-4000-a000-%012d", i),
		Name: fmt.Sprintf("chaos-node-%d", i), Datacenter: "dc1", NodePool: "default",
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
		Attributes: map[string]string{"driver.mock": "1", "kernel.name": "linux"},
		Drivers:    map[string]*structs.DriverInfo{"mock": {Detected: true, Healthy: true}},
		NodeResources: &structs.NodeResources{
			CPU: structs.NodeCPUResources{CpuShares: simNodeCPU}, MemoryMB: simNodeMem, DiskMB: 100_000,
		},
	}
}

func (s *simNodes) register(node *structs.Node) error {
	var err error
	for attempt := 0; attempt < 100; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err = s.client().Register(ctx, &structs.NodeRegisterArgs{Node: node.Copy()})
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond) // retrying through a leader change
	}
	return err
}

// heartbeat reports node i alive every second (the servers' TTL is 2 s),
// except while it flaps; "node not found" registers it again.
func (s *simNodes) heartbeat(i int) {
	node := s.nodes[i]
	for {
		select {
		case <-s.done:
			return
		case <-time.After(time.Second):
		}
		s.mu.Lock()
		quietUntil := s.quiet[i]
		s.mu.Unlock()
		if time.Now().Before(quietUntil) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		_, err := s.client().Heartbeat(ctx, &structs.NodeHeartbeatArgs{NodeID: node.ID, SecretID: node.SecretID, Status: structs.NodeStatusReady})
		cancel()
		if err != nil && isNodeNotFound(err) {
			_ = s.register(node)
		}
	}
}

func isNodeNotFound(err error) bool {
	return errors.Is(err, structs.ErrNodeNotFound)
}

func (s *simNodes) client() *rpcclient.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rpc
}

// useServers points the nodes at servers only: during a partition the
// clients are on the majority side.
func (s *simNodes) useServers(servers []string) error {
	c, err := rpcclient.New(servers)
	if err != nil {
		return err
	}
	s.mu.Lock()
	old := s.rpc
	s.rpc = c
	s.mu.Unlock()
	return old.Close()
}

// flap suspends node i's heartbeats for d.
func (s *simNodes) flap(i int, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quiet[i] = time.Now().Add(d)
}

func (s *simNodes) stop() {
	select {
	case <-s.done:
		return
	default:
		close(s.done)
	}
	s.wg.Wait()
	_ = s.client().Close()
}
