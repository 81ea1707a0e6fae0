package agent

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// HTTPLimits bound what one HTTP client can hold of the agent. Nothing
// here may cut a legitimate long request short: a blocking query waits up
// to 10 minutes (plus Nomad's wait/16 jitter), and log follows, event
// streams and snapshots run as long as they run. Those get a per-request
// deadline (http.ResponseController) instead of a server-wide one.
type HTTPLimits struct {
	// ReadHeader bounds reading a request's headers (slowloris).
	ReadHeader time.Duration
	// ReadBody bounds reading a request's body, from the handler's start;
	// SnapshotBody is the budget for an uploaded snapshot.
	ReadBody     time.Duration
	SnapshotBody time.Duration
	// Idle closes a keep-alive connection with no request in flight.
	Idle time.Duration
	// Write bounds writing an ordinary reply; BlockingWrite a blocking
	// query's (?index=). Streams have no write deadline: they end when the
	// client goes away.
	Write         time.Duration
	BlockingWrite time.Duration
	// MaxConnsPerClient caps connections per client IP (0: no cap).
	MaxConnsPerClient int
}

// DefaultHTTPLimits are the agent's HTTP limits; limits {
// http_max_conns_per_client } overrides the connection cap.
var DefaultHTTPLimits = HTTPLimits{
	ReadHeader:        10 * time.Second,
	ReadBody:          time.Minute,
	SnapshotBody:      30 * time.Minute,
	Idle:              2 * time.Minute,
	Write:             2 * time.Minute,
	BlockingWrite:     12 * time.Minute, // 10 min max wait + 10/16 min jitter + margin
	MaxConnsPerClient: 100,
}

// withDeadlines applies the per-request read and write deadlines.
func (l HTTPLimits) withDeadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		// Only a request with a body to read gets a read deadline: with
		// none, the server is already reading the connection in the
		// background to notice the client leaving, and a deadline there
		// would cancel the request's context.
		var readBudget time.Duration
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			readBudget = l.ReadBody
			if isSnapshot(r) {
				readBudget = l.SnapshotBody
			}
			_ = rc.SetReadDeadline(time.Now().Add(readBudget))
			r.Body = &deadlineBody{ReadCloser: r.Body, done: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		}
		// The reply's budget starts after the body's, so a body read to
		// its deadline still gets its error reply written.
		if d := l.writeBudget(r); d > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(readBudget + d))
		} else {
			_ = rc.SetWriteDeadline(time.Time{})
		}
		next.ServeHTTP(w, r)
	})
}

// writeBudget is how long a request's reply may take to write; 0 means
// no deadline (streams).
func (l HTTPLimits) writeBudget(r *http.Request) time.Duration {
	q := r.URL.Query()
	switch {
	case isStream(r) || q.Get("follow") == "true" || isSnapshot(r):
		return 0
	case q.Get("index") != "":
		return l.BlockingWrite
	}
	return l.Write
}

// streamPrefixes are endpoints whose replies stream until the client
// leaves, or download a file of any size.
var streamPrefixes = []string{
	"/v1/event/stream", "/v1/client/fs/stream/", "/v1/client/fs/logs/",
	"/v1/client/fs/cat/", "/v1/client/fs/readat/",
	"/v1/agent/monitor", "/v1/agent/pprof/", "/v1/client/allocation/",
}

func isStream(r *http.Request) bool {
	for _, p := range streamPrefixes {
		if strings.HasPrefix(r.URL.Path, p) {
			return !strings.HasPrefix(p, "/v1/client/allocation/") || strings.HasSuffix(r.URL.Path, "/exec")
		}
	}
	return false
}

func isSnapshot(r *http.Request) bool { return r.URL.Path == "/v1/operator/snapshot" }

// deadlineBody lifts the read deadline once the body is read to its end,
// so it cannot fire on the server's background read afterwards. After
// any other error the deadline stays: the server then fails to drain the
// rest of the body at once and closes the connection, instead of waiting
// on the slow client again.
type deadlineBody struct {
	io.ReadCloser
	done func()
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, io.EOF) && b.done != nil {
		b.done()
		b.done = nil
	}
	return n, err
}
