// Package connlimit caps how many connections one client IP may hold open
// on a listener (Nomad's http_max_conns_per_client and
// rpc_max_conns_per_client), so one host cannot exhaust the agent's file
// descriptors or goroutines with idle or slow connections.
package connlimit

import (
	"net"
	"sync"
)

// Listener wraps a net.Listener: Accept closes a new connection at once
// when its remote IP already holds Max open ones. Max <= 0 means no cap.
type Listener struct {
	net.Listener
	Max int

	mu   sync.Mutex
	open map[string]int
}

// Wrap returns ln with a per-client-IP connection cap.
func Wrap(ln net.Listener, max int) *Listener {
	return &Listener{Listener: ln, Max: max, open: map[string]int{}}
}

// Accept returns the next connection whose client is under the cap;
// connections over it are closed without being returned.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := clientIP(conn.RemoteAddr())
		if !l.take(ip) {
			conn.Close()
			continue
		}
		return &trackedConn{Conn: conn, release: func() { l.release(ip) }}, nil
	}
}

// Open returns how many connections ip holds.
func (l *Listener) Open(ip string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[ip]
}

func (l *Listener) take(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Max > 0 && l.open[ip] >= l.Max {
		return false
	}
	l.open[ip]++
	return true
}

func (l *Listener) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

func clientIP(addr net.Addr) string {
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// trackedConn gives its slot back once, on the first Close.
type trackedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *trackedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
