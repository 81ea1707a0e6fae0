package connlimit

import (
	"net"
	"testing"
	"time"
)

// The cap closes the client's connections past Max, and a closed
// connection frees its slot.
func TestListener_CapsConnectionsPerClientIP(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Wrap(raw, 2)
	defer ln.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	dial()
	first, second := <-accepted, <-accepted
	third := dial()
	// The third connection is closed by the server: a read sees EOF.
	third.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := third.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("third connection from one IP was not closed: %v", err)
	}
	if got := ln.Open("127.0.0.1"); got != 2 {
		t.Fatalf("open = %d, want 2", got)
	}
	first.Close()
	first.Close() // a second Close must not free a second slot
	second.Close()
	dial()
	select {
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("a freed slot was not reused")
	}
	if got := ln.Open("127.0.0.1"); got != 1 {
		t.Fatalf("open after closes = %d, want 1", got)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
