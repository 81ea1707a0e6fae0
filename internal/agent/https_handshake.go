package agent

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"
)

// handshakeListener serves HTTPS with its own TLS handshake deadline
// (limits.https_handshake_timeout). http.Server would give a handshake
// the smallest of its read and write timeouts, far longer than a
// handshake needs; here each accepted connection completes its handshake
// in its own goroutine within the timeout, or is closed, and only
// finished TLS connections reach the HTTP server. A client that connects
// and sends nothing holds its connection (and a slot of its IP's cap)
// for the timeout, no longer.
type handshakeListener struct {
	raw     net.Listener
	cfg     *tls.Config
	timeout time.Duration
	log     *slog.Logger

	ready chan accepted
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	pending map[net.Conn]struct{} // handshakes in progress; nil once closed
}

type accepted struct {
	conn net.Conn
	err  error
}

func newHandshakeListener(raw net.Listener, cfg *tls.Config, timeout time.Duration, log *slog.Logger) *handshakeListener {
	h := &handshakeListener{raw: raw, cfg: cfg, timeout: timeout, log: log,
		ready: make(chan accepted), done: make(chan struct{}), pending: map[net.Conn]struct{}{}}
	go h.acceptLoop()
	return h
}

// Accept returns the next connection whose handshake finished.
func (h *handshakeListener) Accept() (net.Conn, error) {
	select {
	case a := <-h.ready:
		return a.conn, a.err
	case <-h.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting and ends the handshakes in progress.
func (h *handshakeListener) Close() error {
	h.once.Do(func() {
		close(h.done)
		h.mu.Lock()
		for c := range h.pending {
			c.Close()
		}
		h.pending = nil
		h.mu.Unlock()
	})
	return h.raw.Close()
}

func (h *handshakeListener) Addr() net.Addr { return h.raw.Addr() }

// acceptLoop hands accept errors to Accept (the HTTP server decides
// whether to retry) and starts a handshake per connection.
func (h *handshakeListener) acceptLoop() {
	for {
		c, err := h.raw.Accept()
		if err != nil {
			if !h.deliver(accepted{err: err}) || errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if !h.track(c) {
			c.Close()
			return
		}
		go h.handshake(c)
	}
}

func (h *handshakeListener) handshake(c net.Conn) {
	tc := tls.Server(c, h.cfg)
	_ = c.SetDeadline(time.Now().Add(h.timeout))
	err := tc.Handshake()
	_ = c.SetDeadline(time.Time{})
	if !h.untrack(c) {
		return // closed meanwhile
	}
	if err != nil {
		h.log.Debug("https: TLS handshake failed", "remote", c.RemoteAddr(), "error", err)
		c.Close()
		return
	}
	if !h.deliver(accepted{conn: tc}) {
		tc.Close()
	}
}

// deliver waits for an Accept; false once the listener closed.
func (h *handshakeListener) deliver(a accepted) bool {
	select {
	case h.ready <- a:
		return true
	case <-h.done:
		return false
	}
}

func (h *handshakeListener) track(c net.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending == nil {
		return false
	}
	h.pending[c] = struct{}{}
	return true
}

func (h *handshakeListener) untrack(c net.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending == nil {
		return false
	}
	delete(h.pending, c)
	return true
}
