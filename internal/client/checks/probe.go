package checks

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
)

// MaxOutputBytes caps how much of an http check's response body is kept
// as its output.
const MaxOutputBytes = 1024

// newHTTPClient builds the client http checks share. Redirects are not
// followed (a 3xx answer already shows the service is up) and keep-alives
// are off so every probe tests that the service still accepts connections.
func newHTTPClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// newTLSHTTPClient is an http check's own client, for its
// tls_skip_verify and tls_server_name.
func newTLSHTTPClient(c Check) *http.Client {
	hc := newHTTPClient()
	hc.Transport.(*http.Transport).TLSClientConfig = &tls.Config{ //nolint:gosec // skipping verification is the job's request
		InsecureSkipVerify: c.TLSSkipVerify, ServerName: c.TLSServerName,
	}
	return hc
}

// outcome is one probe's result; code is the HTTP status (0 otherwise).
// warning is a script check's exit code 1: neither passing nor failing.
type outcome struct {
	passing bool
	warning bool
	code    int
	output  string
}

// probe runs the check once; ctx carries the check's timeout.
func (ch *Checker) probe(ctx context.Context, i int, c Check) outcome {
	if c.Type == TypeScript {
		return probeScript(ctx, ch.cfg.Exec, c)
	}
	if c.Address == "" {
		return outcome{output: c.PortNote}
	}
	switch c.Type {
	case TypeHTTP:
		hc := ch.http
		if own := ch.tlsHTTP[i]; own != nil {
			hc = own
		}
		return probeHTTP(ctx, hc, c)
	case TypeTCP:
		passing, out := probeTCP(ctx, c)
		return outcome{passing: passing, output: out}
	case TypeGRPC:
		return probeGRPC(ctx, c)
	}
	return outcome{output: fmt.Sprintf("unsupported check type %q", c.Type)}
}

func probeTCP(ctx context.Context, c Check) (bool, string) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.Address)
	if err != nil {
		return false, "TCP connect " + c.Address + ": " + err.Error()
	}
	_ = conn.Close()
	return true, "TCP connect " + c.Address + ": Success"
}

func probeHTTP(ctx context.Context, hc *http.Client, c Check) outcome {
	url, method := checkURL(c), c.Method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if c.Body != "" {
		body = strings.NewReader(c.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return outcome{output: err.Error()}
	}
	for k, vs := range c.Header {
		if http.CanonicalHeaderKey(k) == "Host" && len(vs) > 0 {
			req.Host = vs[0] // Go sends Host from here, not from Header
			continue
		}
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return outcome{output: fmt.Sprintf("HTTP %s %s: %s", method, url, describeErr(err))}
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(io.LimitReader(resp.Body, MaxOutputBytes))
	out := fmt.Sprintf("HTTP %s %s: %s", method, url, resp.Status)
	if len(got) > 0 {
		out += " Output: " + strings.TrimSpace(string(got))
	}
	return outcome{passing: resp.StatusCode >= 200 && resp.StatusCode < 400, code: resp.StatusCode, output: out}
}

func checkURL(c Check) string {
	scheme := c.Protocol
	if scheme == "" {
		scheme = "http"
	}
	path := c.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	return scheme + "://" + c.Address + path
}

// describeErr says "timed out" plainly instead of the transport's wrapped
// context error.
func describeErr(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}
