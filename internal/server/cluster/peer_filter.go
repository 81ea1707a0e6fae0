package cluster

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/drover-project/drover/internal/rpcwire"
)

// Fault injection (Config.PeerBlocked): the fault harness's network
// partitions cut every kind of server-to-server traffic, not raft alone.
// Each sender drops what it would send to a blocked address, and each
// receiver drops gossip packets from one; the harness partitions both
// sides, so connections (raft, RPC, gossip streams) are never opened
// across the cut and the ones already open break at their next use.
// Without PeerBlocked none of this is in the path.

// peerBlockPoll is how often an in-flight RPC to a peer rechecks whether
// the peer was cut off meanwhile (a blocking dequeue or query would
// otherwise keep a session across the partition open).
const peerBlockPoll = 20 * time.Millisecond

// PeerRPC is every server-to-server RPC (forwarding to the leader, remote
// workers, autopilot's stats, bootstrap's peer check).
func (c *Cluster) PeerRPC(ctx context.Context, addr, method string, args, reply any) error {
	blocked := c.cfg.PeerBlocked
	if blocked == nil {
		return c.pool.RPC(ctx, addr, method, args, reply)
	}
	if blocked(addr) {
		return &rpcwire.DialError{Addr: addr, Err: errPartitioned}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		tick := time.NewTicker(peerBlockPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if blocked(addr) {
					cancel() // the call's stream closes; the session is dropped
					return
				}
			}
		}
	}()
	return c.pool.RPC(ctx, addr, method, args, reply)
}

// partitionableGossip wraps memberlist's UDP/TCP transport: packets and
// streams to a blocked serf address fail, packets from one are dropped.
type partitionableGossip struct {
	memberlist.Transport
	blocked func(addr string) bool
	packets chan *memberlist.Packet
	done    chan struct{}
	stop    sync.Once
}

// newPartitionableGossip binds memberlist's own transport on ml's address
// and puts the filter in front of it.
func newPartitionableGossip(ml *memberlist.Config, blocked func(string) bool) (*partitionableGossip, error) {
	nt, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{
		BindAddrs: []string{ml.BindAddr}, BindPort: ml.BindPort, Logger: ml.Logger,
	})
	if err != nil {
		return nil, err
	}
	if ml.BindPort == 0 {
		ml.BindPort = nt.GetAutoBindPort()
		ml.AdvertisePort = ml.BindPort
	}
	g := &partitionableGossip{Transport: nt, blocked: blocked,
		packets: make(chan *memberlist.Packet), done: make(chan struct{})}
	go g.filterPackets(nt.PacketCh())
	return g, nil
}

// filterPackets passes on every received packet whose sender is not
// blocked (a UDP packet's source is the sender's serf address).
func (g *partitionableGossip) filterPackets(in <-chan *memberlist.Packet) {
	for {
		select {
		case p := <-in:
			if p.From != nil && g.blocked(p.From.String()) {
				continue
			}
			select {
			case g.packets <- p:
			case <-g.done:
				return
			}
		case <-g.done:
			return
		}
	}
}

func (g *partitionableGossip) PacketCh() <-chan *memberlist.Packet { return g.packets }

func (g *partitionableGossip) WriteTo(b []byte, addr string) (time.Time, error) {
	if g.blocked(addr) {
		return time.Now(), nil // sent into the void, as UDP would be
	}
	return g.Transport.WriteTo(b, addr)
}

func (g *partitionableGossip) DialTimeout(addr string, timeout time.Duration) (net.Conn, error) {
	if g.blocked(addr) {
		return nil, errPartitioned
	}
	conn, err := g.Transport.DialTimeout(addr, timeout)
	if err != nil {
		return nil, err
	}
	return &partitionableConn{Conn: conn, peer: addr, blocked: g.blocked}, nil
}

func (g *partitionableGossip) Shutdown() error {
	g.stop.Do(func() { close(g.done) })
	return g.Transport.Shutdown()
}
