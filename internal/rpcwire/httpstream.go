package rpcwire

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/structs"
)

// HTTP over a stream: a client-only agent forwards the cluster API to its
// server over the RPC session it already holds (no second port, the same
// mutual TLS). It opens a yamux stream, writes structs.RPCStreamHTTPByte,
// and speaks HTTP/1.1 on the rest of the stream; the server answers with
// its agent's HTTP handler, which checks the caller's token as it checks
// any request.

// OpenHTTPStream opens a stream on session for HTTP requests.
func OpenHTTPStream(session *yamux.Session) (net.Conn, error) {
	stream, err := session.OpenStream()
	if err != nil {
		return nil, err
	}
	if _, err := stream.Write([]byte{structs.RPCStreamHTTPByte}); err != nil {
		stream.Close()
		return nil, err
	}
	return stream, nil
}

// PeekConn is a connection whose first bytes were read ahead (to choose a
// protocol) and are read again.
type PeekConn struct {
	net.Conn
	R *bufio.Reader
}

func (c *PeekConn) Read(p []byte) (int, error) { return c.R.Read(p) }

// ServeHTTPStream serves HTTP requests arriving on conn (after its
// protocol byte) with h until the peer closes the stream or ctx ends.
func ServeHTTPStream(ctx context.Context, conn net.Conn, h http.Handler) {
	ln := &oneConnListener{conn: &closeNotifyConn{Conn: conn, closed: make(chan struct{})}}
	srv := &http.Server{Handler: h, BaseContext: func(net.Listener) context.Context { return ctx },
		// As the agent's own listener: a peer that opens a stream and
		// sends nothing does not hold it (and a goroutine) forever.
		ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 5 * time.Minute}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	_ = srv.Serve(ln)
}

// oneConnListener hands out one connection, then blocks until it closes,
// so http.Server.Serve returns only once the connection is done.
type oneConnListener struct {
	conn *closeNotifyConn
	once sync.Once
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	var c net.Conn
	l.once.Do(func() { c = l.conn })
	if c != nil {
		return c, nil
	}
	<-l.conn.closed
	return nil, errors.New("rpcwire: http stream closed")
}

func (l *oneConnListener) Close() error {
	l.conn.Close()
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return l.conn.LocalAddr() }

// closeNotifyConn closes its channel on Close.
type closeNotifyConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *closeNotifyConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
