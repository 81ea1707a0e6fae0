// Package rpcwire is the internal RPC's wire, shared by every caller (the
// client agent's rpcclient, and servers forwarding to the leader or asking
// each other for raft stats): a TCP connection that starts with
// structs.RPCMultiplexByte, a yamux session over it, and one net/rpc call
// encoded with msgpack per stream. Errors keep their HTTP status across
// the wire (see EncodeError / DecodeError).
package rpcwire

import (
	"context"
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
	d := net.Dialer{Timeout: DialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte{structs.RPCMultiplexByte}); err != nil {
		conn.Close()
		return nil, err
	}
	session, err := yamux.Client(conn, YamuxConfig())
	if err != nil {
		conn.Close()
		return nil, err
	}
	return session, nil
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
	codec := msgpackrpc.NewCodecFromHandle(true, true, stream, structs.MsgpackHandle)
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
		coded.cause = rpcErr
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

// Pool keeps one session per server address and reuses it for every call.
type Pool struct {
	mu       sync.Mutex
	sessions map[string]*yamux.Session
	closed   bool
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{sessions: map[string]*yamux.Session{}} }

// RPC calls method on addr. A broken connection is dropped (the next call
// dials again) and its error returned.
func (p *Pool) RPC(ctx context.Context, addr, method string, args, reply any) error {
	session, err := p.session(ctx, addr)
	if err != nil {
		return &DialError{Addr: addr, Err: err}
	}
	err = Call(ctx, session, method, args, reply)
	if err != nil && !IsServerError(err) {
		p.drop(addr, session)
	}
	return DecodeError(err)
}

func (p *Pool) session(ctx context.Context, addr string) (*yamux.Session, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("rpcwire: pool closed")
	}
	if s := p.sessions[addr]; s != nil && !s.IsClosed() {
		return s, nil
	}
	s, err := Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	p.sessions[addr] = s
	return s, nil
}

func (p *Pool) drop(addr string, s *yamux.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions[addr] == s {
		delete(p.sessions, addr)
	}
	s.Close()
}

// Close closes every session.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for addr, s := range p.sessions {
		s.Close()
		delete(p.sessions, addr)
	}
	return nil
}
