package cluster

import (
	"context"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/drover-project/drover/internal/rpcwire"
)

// Fault injection (Config.PeerFilter): the fault harness's network
// partitions cut every kind of server-to-server traffic, not raft alone.
// Each sender filters what it sends to a cut address, and each receiver
// drops gossip packets from one; the harness partitions both sides. A
// connection is filtered on the side that dialed it (the address it dialed
// is the peer's), in both directions, so each open connection across the
// cut is cut too. Without PeerFilter none of this is in the path.
//
// A cut is one of two kinds:
//   - PeerRefused: as if the peer's host answered with resets: dials fail
//     at once, open connections break at their next read or write, and a
//     call in flight ends (PeerRPC).
//   - PeerDropped: as a real partition: packets vanish. A dial hangs until
//     its timeout, and on an open connection reads wait (for data that
//     never comes) and writes are kept back, as TCP keeps unacknowledged
//     data, until the cut heals or the connection's deadline passes; once
//     healed, what was kept back is delivered in order. Nothing breaks
//     by itself: the user must notice from its own deadlines.

// Cut is how traffic to a peer address is cut.
type Cut uint8

const (
	// PeerReachable: no cut.
	PeerReachable Cut = iota
	// PeerRefused: dials fail and connections break at once.
	PeerRefused
	// PeerDropped: packets vanish; dials and reads hang.
	PeerDropped
)

// peerBlockPoll is how often a call in flight to a peer (PeerRPC), or a
// dial, read or write held by a dropped cut, rechecks the peer's cut.
const peerBlockPoll = 10 * time.Millisecond

// PeerRPC is every server-to-server RPC (forwarding to the leader, remote
// workers, autopilot's stats, bootstrap's peer check).
func (c *Cluster) PeerRPC(ctx context.Context, addr, method string, args, reply any) error {
	cut := c.cfg.PeerFilter
	if cut == nil {
		return c.pool.RPC(ctx, addr, method, args, reply)
	}
	if cut(addr) == PeerRefused {
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
				if cut(addr) == PeerRefused {
					cancel() // the call's stream closes; the session is dropped
					return
				}
			}
		}
	}()
	// A dropped cut acts in the pool's connections (filterDialer): the
	// call hangs as it would across a real partition.
	return c.pool.RPC(ctx, addr, method, args, reply)
}

// filterDialer is the pool's dialer under fault injection: it dials
// through holdDial and filters the connection.
func filterDialer(cut func(string) Cut) rpcwire.Dialer {
	return func(ctx context.Context, addr string) (net.Conn, error) {
		if err := holdDial(ctx, addr, cut); err != nil {
			return nil, err
		}
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		return newFilteredConn(conn, addr, cut), nil
	}
}

// holdDial is the cut's effect on a dial to addr: refused at once, or
// held (a SYN that is never answered) until the cut heals or ctx ends.
func holdDial(ctx context.Context, addr string, cut func(string) Cut) error {
	for {
		switch cut(addr) {
		case PeerReachable:
			return nil
		case PeerRefused:
			return errPartitioned
		}
		select {
		case <-ctx.Done():
			return &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}
		case <-time.After(peerBlockPoll):
		}
	}
}

// holdDialTimeout is holdDial bounded by timeout (raft's and memberlist's
// dials).
func holdDialTimeout(addr string, timeout time.Duration, cut func(string) Cut) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return holdDial(ctx, addr, cut)
}

// maxHeldWrites bounds what a dropped cut keeps back on one connection
// (a socket's send buffer); a writer beyond it waits.
const maxHeldWrites = 1 << 20

// filteredConn is a connection to a peer under fault injection (raft's
// pooled connections, gossip streams, the RPC pool's sessions).
type filteredConn struct {
	net.Conn
	peer   string
	cut    func(string) Cut
	closed chan struct{}
	once   sync.Once
	rdl    atomic.Pointer[time.Time] // read deadline (nil: none)
	wdl    atomic.Pointer[time.Time]

	readMu  sync.Mutex
	pending []byte // read from the socket while dropped, not yet returned

	writeMu sync.Mutex
	held    []byte // written while dropped, not yet sent
}

func newFilteredConn(conn net.Conn, peer string, cut func(string) Cut) *filteredConn {
	return &filteredConn{Conn: conn, peer: peer, cut: cut, closed: make(chan struct{})}
}

// hold waits while the peer's cut drops traffic: until it heals, the
// connection closes or the deadline passes. A refused cut breaks the
// connection.
func (c *filteredConn) hold(deadline *atomic.Pointer[time.Time]) error {
	for {
		switch c.cut(c.peer) {
		case PeerReachable:
			return nil
		case PeerRefused:
			c.Close()
			return errPartitioned
		}
		if d := deadline.Load(); d != nil && !time.Now().Before(*d) {
			return os.ErrDeadlineExceeded
		}
		select {
		case <-c.closed:
			return net.ErrClosed
		case <-time.After(peerBlockPoll):
		}
	}
}

func (c *filteredConn) Read(p []byte) (int, error) {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	if err := c.hold(&c.rdl); err != nil {
		return 0, err
	}
	c.flushHeld()
	if len(c.pending) == 0 {
		n, err := c.Conn.Read(p)
		if n == 0 || c.cut(c.peer) == PeerReachable {
			return n, err
		}
		// The cut began while this read waited: what arrived is held
		// back until it heals.
		c.pending = append(c.pending, p[:n]...)
		if err := c.hold(&c.rdl); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *filteredConn) Write(p []byte) (int, error) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	switch c.cut(c.peer) {
	case PeerRefused:
		c.Close()
		return 0, errPartitioned
	case PeerDropped:
		if len(c.held)+len(p) <= maxHeldWrites {
			c.held = append(c.held, p...)
			return len(p), nil
		}
		if err := c.hold(&c.wdl); err != nil {
			return 0, err
		}
	}
	if err := c.sendHeldLocked(); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}

// flushHeld sends what a healed cut kept back (a reader waiting for the
// answer to a request written during the cut must not wait for the next
// write).
func (c *filteredConn) flushHeld() {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.cut(c.peer) == PeerReachable {
		_ = c.sendHeldLocked()
	}
}

func (c *filteredConn) sendHeldLocked() error {
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.held)
	c.held = nil
	return err
}

func (c *filteredConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *filteredConn) SetDeadline(t time.Time) error {
	c.rdl.Store(deadlinePtr(t))
	c.wdl.Store(deadlinePtr(t))
	return c.Conn.SetDeadline(t)
}

func (c *filteredConn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(deadlinePtr(t))
	return c.Conn.SetReadDeadline(t)
}

func (c *filteredConn) SetWriteDeadline(t time.Time) error {
	c.wdl.Store(deadlinePtr(t))
	return c.Conn.SetWriteDeadline(t)
}

func deadlinePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// partitionableGossip wraps memberlist's UDP/TCP transport: packets to a
// cut serf address vanish and packets from one are dropped; streams follow
// the cut's kind.
type partitionableGossip struct {
	memberlist.Transport
	cut     func(addr string) Cut
	packets chan *memberlist.Packet
	done    chan struct{}
	stop    sync.Once
}

// newPartitionableGossip binds memberlist's own transport on ml's address
// and puts the filter in front of it.
func newPartitionableGossip(ml *memberlist.Config, cut func(string) Cut) (*partitionableGossip, error) {
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
	g := &partitionableGossip{Transport: nt, cut: cut,
		packets: make(chan *memberlist.Packet), done: make(chan struct{})}
	go g.filterPackets(nt.PacketCh())
	return g, nil
}

func (g *partitionableGossip) blocked(addr string) bool { return g.cut(addr) != PeerReachable }

// filterPackets passes on every received packet whose sender is not
// cut (a UDP packet's source is the sender's serf address).
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
	if err := holdDialTimeout(addr, timeout, g.cut); err != nil {
		return nil, err
	}
	conn, err := g.Transport.DialTimeout(addr, timeout)
	if err != nil {
		return nil, err
	}
	return newFilteredConn(conn, addr, g.cut), nil
}

func (g *partitionableGossip) Shutdown() error {
	g.stop.Do(func() { close(g.done) })
	return g.Transport.Shutdown()
}
