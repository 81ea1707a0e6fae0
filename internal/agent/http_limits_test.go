package agent

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil"
)

// withHTTPLimits runs a test agent with l as its HTTP limits.
func withHTTPLimits(t *testing.T, l HTTPLimits, mutate func(*config.Config)) *Agent {
	t.Helper()
	saved := DefaultHTTPLimits
	DefaultHTTPLimits = l
	t.Cleanup(func() { DefaultHTTPLimits = saved })
	a, _ := testAgent(t, mutate)
	return a
}

func shortLimits() HTTPLimits {
	l := DefaultHTTPLimits
	l.ReadHeader, l.ReadBody, l.Write = 300*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	return l
}

// A client that sends headers and then trickles nothing of its promised
// body is cut off; it does not hold a handler and a connection forever.
func TestHTTP_SlowBodyIsCutOff(t *testing.T) {
	a := withHTTPLimits(t, shortLimits(), nil)
	conn, err := net.Dial("tcp", a.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 400 {
			t.Fatalf("slow body answered %d %s", resp.StatusCode, body)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept the slow-body connection open for 10 s")
	}
}

// A client that never finishes its headers is cut off.
func TestHTTP_SlowHeadersAreCutOff(t *testing.T) {
	a := withHTTPLimits(t, shortLimits(), nil)
	conn, err := net.Dial("tcp", a.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /v1/jobs HTTP/1.1\r\nHost: x\r\n")
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept the slow-header connection open for 10 s")
	}
}

// A blocking query may take longer than an ordinary reply's write budget.
func TestHTTP_BlockingQueryOutlivesWriteBudget(t *testing.T) {
	a := withHTTPLimits(t, shortLimits(), nil)
	resp, err := http.Get("http://" + a.HTTPAddr() + "/v1/jobs?index=1000000&wait=1s")
	if err != nil {
		t.Fatalf("blocking query cut off: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("blocking query: %d", resp.StatusCode)
	}
}

// limits { http_max_conns_per_client } caps one IP's connections.
func TestHTTP_ConnectionCapPerClient(t *testing.T) {
	a := withHTTPLimits(t, DefaultHTTPLimits, func(c *config.Config) { c.Limits.HTTPMaxConnsPerClient = 3 })
	var conns []net.Conn
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", a.HTTPAddr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	extra, err := net.Dial("tcp", a.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	fmt.Fprintf(extra, "GET /v1/status/leader HTTP/1.1\r\nHost: x\r\n\r\n")
	extra.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := io.ReadAll(extra); len(b) > 0 || err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("fourth connection was served: %q %v", b, err)
	}
	// Closing one frees a slot.
	conns[0].Close()
	testutil.WaitFor(t, 5*time.Second, "a slot after a close", func() (bool, string) {
		resp, err := http.Get("http://" + a.HTTPAddr() + "/v1/status/leader")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return true, ""
	})
}
