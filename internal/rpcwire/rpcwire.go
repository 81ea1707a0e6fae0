package rpcwire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"regexp"
	"strconv"
	"sync"
	"time"

	msgpackrpc "github.com/hashicorp/net-rpc-msgpackrpc/v2"
	"github.com/hashicorp/yamux"

	"github.com/drover-project/drover/internal/structs"
)

// DialTimeout bounds one connection attempt to one server.
const DialTimeout = 5 * time.Second

// YamuxConfig is the session configuration both ends use.
func YamuxConfig() *yamux.Config {
	c := yamux.DefaultConfig()
	c.LogOutput = io.Discard
	return c
}

// Dial opens a multiplexed RPC session to addr.
func Dial(ctx context.Context, addr string) (*yamux.Session, error) {
	return DialTLS(ctx, addr, nil)
}

// DialTLS opens a multiplexed RPC session to addr, over mutual TLS when
// cfg is set (tls { rpc = true }).
func DialTLS(ctx context.Context, addr string, cfg *tls.Config) (*yamux.Session, error) {
	conn, err := DialProtocol(ctx, addr, cfg, structs.RPCMultiplexByte)
	if err != nil {
		return nil, err
	}
	session, err := yamux.Client(conn, YamuxConfig())
	if err != nil {
		conn.Close()
		return nil, err
	}
	return session, nil
}

// DialProtocol connects to a server's rpc port and selects protocol (the
// first byte), inside TLS when cfg is set.
func DialProtocol(ctx context.Context, addr string, cfg *tls.Config, protocol byte) (net.Conn, error) {
	return dialProtocol(ctx, nil, addr, cfg, protocol)
}

// Dialer opens the TCP connection to a server (fault injection wraps it).
type Dialer func(ctx context.Context, addr string) (net.Conn, error)

// dialProtocol is DialProtocol over dial (nil: a plain TCP dial bounded
// by DialTimeout and ctx).
func dialProtocol(ctx context.Context, dial Dialer, addr string, cfg *tls.Config, protocol byte) (net.Conn, error) {
	if dial == nil {
		d := net.Dialer{Timeout: DialTimeout}
		dial = func(ctx context.Context, addr string) (net.Conn, error) { return d.DialContext(ctx, "tcp", addr) }
	}
	conn, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	if cfg != nil {
		if _, err := conn.Write([]byte{structs.RPCTLSByte}); err != nil {
			conn.Close()
			return nil, err
		}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	if _, err := conn.Write([]byte{protocol}); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// Call runs one call on its own stream of session; ctx cancels it by
// closing the stream.
func Call(ctx context.Context, session *yamux.Session, method string, args, reply any) error {
	stream, err := session.Open()
	if err != nil {
		return err
	}
	defer stream.Close()
	// Close only half-closes a yamux stream: a reader blocked on the
	// server's answer (a blocking query) would wait for it. The deadline
	// ends that read now.
	stop := context.AfterFunc(ctx, func() {
		_ = stream.SetReadDeadline(time.Now())
		stream.Close()
	})
	defer stop()
	codec := msgpackrpc.NewCodecFromHandle(true, true, stream, structs.StructArrayHandle)
	return msgpackrpc.CallWithCodec(codec, method, args, reply)
}

// IsServerError reports whether err is the remote server's answer (as
// opposed to a broken connection, which is worth retrying elsewhere).
func IsServerError(err error) bool {
	var serverErr rpc.ServerError
	return errors.As(err, &serverErr)
}

// CodedError is an error that carries the HTTP status the server gave it,
// and the sentinel its text names (structs.RPCError), if any.
type CodedError struct {
	Code  int
	Msg   string
	cause error
}

func (e *CodedError) Error() string { return e.Msg }

// Unwrap returns the structs.RPCError the message encodes, if any.
func (e *CodedError) Unwrap() error { return e.cause }

// EncodeError is the string a server sends for err: its message, and
// when code is not 500 a " [code N]" suffix that DecodeError reads back.
func EncodeError(msg string, code int) string {
	if code == 0 || code == 500 {
		return msg
	}
	return fmt.Sprintf("%s [code %d]", msg, code)
}

var codeSuffix = regexp.MustCompile(`^(?s)(.*) \[code (\d{3})\]$`)

// DecodeError turns a server's error back into a CodedError when it
// carried a status, and into its structs.RPCError (matching a sentinel
// under errors.Is) when it names one; other errors are returned unchanged.
func DecodeError(err error) error {
	var serverErr rpc.ServerError
	if !errors.As(err, &serverErr) {
		return err
	}
	text := string(serverErr)
	var coded *CodedError
	if m := codeSuffix.FindStringSubmatch(text); m != nil {
		code, _ := strconv.Atoi(m[2])
		text = m[1]
		coded = &CodedError{Code: code, Msg: text}
	}
	rpcErr, named := structs.DecodeRPCError(text)
	switch {
	case coded != nil && named:
		// The message without the wire prefix: it is what a client logs.
		coded.Msg, coded.cause = rpcErr.Msg, rpcErr
		return coded
	case coded != nil:
		return coded
	case named:
		return rpcErr
	}
	return err
}

// Encode is the error a server sends for err whose HTTP status is code:
// its sentinel's code (structs.EncodeRPCError) and the status survive
// net/rpc, which carries only the text.
func Encode(err error, code int) error {
	if err == nil {
		return nil
	}
	return errors.New(EncodeError(structs.EncodeRPCError(err).Error(), code))
}

// DialError means the call never reached the server: retrying it, even
// a write, cannot apply it twice.
type DialError struct {
	Addr string
	Err  error
}

func (e *DialError) Error() string { return fmt.Sprintf("dial %s: %v", e.Addr, e.Err) }
func (e *DialError) Unwrap() error { return e.Err }

// Pool keeps one session per server address and reuses it for every
// call. It also reuses the streams of finished calls, each with its codec:
// opening a stream costs a window-update frame each way, a goroutine on
// the server and two buffered codecs, and a follower's worker makes four
// calls per eval (dequeue, plan, status, ack).
//
// A session is dialed outside the pool's lock, once per address however
// many calls wait for it: a server that does not answer (its packets
// dropped) delays only the calls to it, never those to other servers.
type Pool struct {
	// TLS, when set, makes every session mutual TLS.
	TLS *tls.Config
	// Dial, when set, opens the TCP connections (fault injection); nil
	// dials TCP.
	Dial Dialer
	// DialTimeout bounds connecting to a server (0: DialTimeout).
	DialTimeout time.Duration
	mu          sync.Mutex
	sessions    map[string]*pooledSession
	dialing     map[string]*pendingDial
	closed      bool
}

// pendingDial is a dial in progress; done is closed when ps or err is set.
type pendingDial struct {
	done chan struct{}
	ps   *pooledSession
	err  error
}

// pooledSession is a session and its idle streams (guarded by Pool.mu).
type pooledSession struct {
	session *yamux.Session
	idle    []*streamCall
}

// maxIdleStreams bounds the idle streams kept per session; a burst of
// concurrent calls beyond it closes its streams when they finish.
const maxIdleStreams = 32

// streamCall is one stream and the codec its calls are written with.
// Invariant: an idle streamCall's last call ended with a whole response
// read and no cancellation, so the server is waiting for the next request
// header on it.
type streamCall struct {
	stream net.Conn
	codec  rpc.ClientCodec
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{sessions: map[string]*pooledSession{}, dialing: map[string]*pendingDial{}}
}

// RPC calls method on addr. A broken connection is dropped (the next call
// dials again) and its error returned. A pooled session that can no longer
// open a stream (its server went away) is dropped and dialed again once
// within the call: the request had not left, so this is safe for a write.
func (p *Pool) RPC(ctx context.Context, addr, method string, args, reply any) error {
	var sc *streamCall
	var ps *pooledSession
	for attempt := 0; ; attempt++ {
		var err error
		if ps, err = p.session(ctx, addr); err != nil {
			return &DialError{Addr: addr, Err: err}
		}
		if sc, err = p.takeStream(ps); err == nil {
			break
		}
		p.drop(addr, ps)
		if attempt > 0 {
			return &DialError{Addr: addr, Err: err} // never sent
		}
	}
	reusable, err := sc.call(ctx, method, args, reply)
	switch {
	case reusable:
		p.putStream(ps, sc)
	case err != nil && !IsServerError(err):
		sc.stream.Close()
		p.drop(addr, ps)
	default:
		sc.stream.Close()
	}
	return DecodeError(err)
}

// call runs one call on the stream; ctx cancels it by closing the stream.
// It reports whether the stream may carry another call: only after a
// successful one that ctx did not cut short. After an error reply the
// server may have stopped reading the stream (an undecodable request, a
// handler panic), so it is not reused.
func (sc *streamCall) call(ctx context.Context, method string, args, reply any) (reusable bool, err error) {
	stop := context.AfterFunc(ctx, func() {
		_ = sc.stream.SetReadDeadline(time.Now())
		sc.stream.Close()
	})
	err = msgpackrpc.CallWithCodec(sc.codec, method, args, reply)
	notCanceled := stop()
	return err == nil && notCanceled, err
}

func (p *Pool) takeStream(ps *pooledSession) (*streamCall, error) {
	p.mu.Lock()
	if ps.session.IsClosed() {
		p.mu.Unlock()
		return nil, yamux.ErrSessionShutdown
	}
	if n := len(ps.idle); n > 0 {
		sc := ps.idle[n-1]
		ps.idle[n-1] = nil
		ps.idle = ps.idle[:n-1]
		p.mu.Unlock()
		return sc, nil
	}
	p.mu.Unlock()
	stream, err := ps.session.Open()
	if err != nil {
		return nil, err
	}
	return &streamCall{stream: stream, codec: msgpackrpc.NewCodecFromHandle(true, true, stream, structs.StructArrayHandle)}, nil
}

func (p *Pool) putStream(ps *pooledSession, sc *streamCall) {
	p.mu.Lock()
	keep := !p.closed && len(ps.idle) < maxIdleStreams && !ps.session.IsClosed()
	if keep {
		ps.idle = append(ps.idle, sc)
	}
	p.mu.Unlock()
	if !keep {
		sc.stream.Close()
	}
}

// session returns addr's session, dialing it when there is none; calls
// that find a dial in progress wait for it (or for their ctx).
func (p *Pool) session(ctx context.Context, addr string) (*pooledSession, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("rpcwire: pool closed")
	}
	if ps := p.sessions[addr]; ps != nil && !ps.session.IsClosed() {
		p.mu.Unlock()
		return ps, nil
	}
	if d := p.dialing[addr]; d != nil {
		p.mu.Unlock()
		select {
		case <-d.done:
			return d.ps, d.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	d := &pendingDial{done: make(chan struct{})}
	p.dialing[addr] = d
	p.mu.Unlock()

	d.ps, d.err = p.dial(ctx, addr)
	p.mu.Lock()
	delete(p.dialing, addr)
	if d.err == nil {
		if p.closed {
			d.ps.session.Close()
			d.ps, d.err = nil, errors.New("rpcwire: pool closed")
		} else {
			p.sessions[addr] = d.ps
		}
	}
	p.mu.Unlock()
	close(d.done)
	return d.ps, d.err
}

// dial opens a session to addr, bounded by the pool's dial timeout.
func (p *Pool) dial(ctx context.Context, addr string) (*pooledSession, error) {
	timeout := p.DialTimeout
	if timeout <= 0 {
		timeout = DialTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := dialProtocol(ctx, p.Dial, addr, p.TLS, structs.RPCMultiplexByte)
	if err != nil {
		return nil, err
	}
	s, err := yamux.Client(conn, YamuxConfig())
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &pooledSession{session: s}, nil
}

// drop closes a session and its idle streams; the next call dials again.
func (p *Pool) drop(addr string, ps *pooledSession) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions[addr] == ps {
		delete(p.sessions, addr)
	}
	ps.idle = nil
	ps.session.Close()
}

// Close closes every session.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, ps := range p.sessions {
		ps.idle = nil
		ps.session.Close()
		delete(p.sessions, addr)
	}
	return nil
}
