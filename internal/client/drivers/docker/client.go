package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// DefaultEndpoint is the Docker daemon's usual socket.
const DefaultEndpoint = "unix:///var/run/docker.sock"

// maxAPIVersion is the newest Engine API this client speaks; it uses the
// daemon's version when that is older. The fields used are stable from
// 1.41 on.
const maxAPIVersion = "1.45"

// Client is a minimal Docker Engine API client: just the calls the driver
// makes, over net/http, which keeps the module free of the large official
// client and its dependency tree.
type Client struct {
	http *http.Client
	base string
	// dial opens a raw connection to the daemon, for the calls that take
	// the connection over (exec's attached streams).
	dial func(ctx context.Context) (net.Conn, error)

	mu      sync.Mutex
	version string
}

// APIError is a non-2xx answer from the daemon.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("docker: %s (HTTP %d)", e.Message, e.Status) }

// IsNotFound reports a 404 from the daemon.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// isConflict reports a 409 (name in use, container not running).
func isConflict(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusConflict
}

// NewClient connects to endpoint: unix:///path, tcp://host:port or
// http://host:port.
func NewClient(endpoint string) (*Client, error) {
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("docker endpoint %q: %w", endpoint, err)
	}
	tr := &http.Transport{MaxIdleConns: 8}
	base := "http://" + u.Host
	host := u.Host
	dial := func(ctx context.Context) (net.Conn, error) { return (&net.Dialer{}).DialContext(ctx, "tcp", host) }
	switch u.Scheme {
	case "unix":
		sock := u.Path
		dial = func(ctx context.Context) (net.Conn, error) { return (&net.Dialer{}).DialContext(ctx, "unix", sock) }
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx) }
		base = "http://docker"
	case "tcp", "http":
	default:
		return nil, fmt.Errorf("docker endpoint %q: unsupported scheme %q", endpoint, u.Scheme)
	}
	return &Client{http: &http.Client{Transport: tr}, base: base, dial: dial}, nil
}

// apiVersion negotiates once: min(daemon's version, maxAPIVersion).
func (c *Client) apiVersion(ctx context.Context) (string, error) {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v != "" {
		return v, nil
	}
	info, err := c.Version(ctx)
	if err != nil {
		return "", err
	}
	v = maxAPIVersion
	if versionLess(info.APIVersion, maxAPIVersion) {
		v = info.APIVersion
	}
	c.mu.Lock()
	c.version = v
	c.mu.Unlock()
	return v, nil
}

// versionLess compares "1.41"-style versions numerically.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

// request sends a versioned call and returns the open response on 2xx.
func (c *Client) request(ctx context.Context, method, path string, q url.Values, body io.Reader, contentType string) (*http.Response, error) {
	v, err := c.apiVersion(ctx)
	if err != nil {
		return nil, err
	}
	return c.raw(ctx, method, "/v"+v+path, q, body, contentType)
}

func (c *Client) raw(ctx context.Context, method, path string, q url.Values, body io.Reader, contentType string) (*http.Response, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("docker daemon unreachable: %w", err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotModified {
		defer resp.Body.Close()
		return nil, decodeAPIError(resp)
	}
	return resp, nil
}

func decodeAPIError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var msg struct{ Message string }
	if json.Unmarshal(b, &msg) != nil || msg.Message == "" {
		msg.Message = strings.TrimSpace(string(b))
	}
	return &APIError{Status: resp.StatusCode, Message: msg.Message}
}

// call is request for JSON in, JSON (or nothing) out.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var body io.Reader
	ct := ""
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body, ct = bytes.NewReader(b), "application/json"
	}
	resp, err := c.request(ctx, method, path, q, body, ct)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
