package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/rpcwire"
	"github.com/drover-project/drover/internal/structs"
)

// RaftLayer is raft's StreamLayer over the shared rpc listener: the RPC
// accept loop hands it every connection that starts with structs.RPCRaftByte, and
// Dial opens connections to other servers that start with it.
type RaftLayer struct {
	addr    net.Addr
	cut     func(addr string) Cut // fault injection; nil in production
	tls     *tls.Config           // tls { rpc = true }: raft inside mutual TLS
	conns   chan net.Conn
	closeMu sync.Mutex
	closed  chan struct{}
}

var _ raft.StreamLayer = (*RaftLayer)(nil)

func newRaftLayer(addr net.Addr, cut func(string) Cut) *RaftLayer {
	return &RaftLayer{addr: addr, cut: cut, conns: make(chan net.Conn), closed: make(chan struct{})}
}

// Handoff gives an accepted raft connection to raft's transport.
func (l *RaftLayer) Handoff(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.closed:
		c.Close()
	}
}

// Accept waits for the next raft connection.
func (l *RaftLayer) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; the shared listener stays with the RPC server.
func (l *RaftLayer) Close() error {
	l.closeMu.Lock()
	defer l.closeMu.Unlock()
	select {
	case <-l.closed:
	default:
		close(l.closed)
	}
	return nil
}

// Addr is the advertised rpc address.
func (l *RaftLayer) Addr() net.Addr { return l.addr }

// Dial connects to another server's rpc port and selects raft.
func (l *RaftLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	if l.cut != nil {
		if err := holdDialTimeout(string(address), timeout, l.cut); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	conn, err := rpcwire.DialProtocol(ctx, string(address), l.tls, structs.RPCRaftByte)
	if err != nil {
		return nil, err
	}
	if l.cut != nil {
		return newFilteredConn(conn, string(address), l.cut), nil
	}
	return conn, nil
}

// errPartitioned is what traffic to a cut-off peer reports.
var errPartitioned = errors.New("traffic to this peer is dropped (injected partition)")
