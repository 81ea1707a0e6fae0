package server

import (
	"net"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/structs"
)

// raftLayer is raft's StreamLayer over the shared rpc listener: the RPC
// accept loop hands it every connection that starts with structs.RPCRaftByte, and
// Dial opens connections to other servers that start with it.
type raftLayer struct {
	addr    net.Addr
	conns   chan net.Conn
	closeMu sync.Mutex
	closed  chan struct{}
}

func newRaftLayer(addr net.Addr) *raftLayer {
	return &raftLayer{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

// handoff gives an accepted raft connection to raft's transport.
func (l *raftLayer) handoff(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.closed:
		c.Close()
	}
}

// Accept waits for the next raft connection.
func (l *raftLayer) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; the shared listener stays with the RPC server.
func (l *raftLayer) Close() error {
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
func (l *raftLayer) Addr() net.Addr { return l.addr }

// Dial connects to another server's rpc port and selects raft.
func (l *raftLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", string(address), timeout)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte{structs.RPCRaftByte}); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
