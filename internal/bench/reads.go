package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	neturl "net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/agent"
)

// readClients is the concurrency: 20 HTTP clients at once.
const readClients = 20

// ReadEndpoints are the mixed read load's requests, each client cycling
// through them in turn. "blocking" is a blocking query on one job whose
// index has already passed, so it answers at once as a client catching up
// does (a query that waits would measure the wait, not the server).
var ReadEndpoints = []string{"jobs", "job", "allocations", "nodes", "blocking"}

// ReadStat is one endpoint's figures over the load.
type ReadStat struct {
	Endpoint string
	Count    int
	Bytes    int64 // response bytes, summed (on the wire: gzip'd with ReadGzip)
	// LastPages counts the replies of a paged listing (ReadPage) that
	// were its last page, after which the client starts over.
	LastPages int
	P50, P99  time.Duration
}

// runReads places the spec's jobs, then serves the agent's HTTP API on
// loopback and runs readClients clients of the mixed read load for the
// spec's window. PerSecond is completed reads per second over all
// endpoints; Reads has each endpoint's latency and size.
func runReads(c *Cluster, res *Result) error {
	evalIDs, err := submitJobs(c, res.Spec)
	if err != nil {
		return err
	}
	if _, err := waitEvals(c.Srv.State(), evalIDs, waitTimeout+time.Duration(res.Jobs*res.Count)*placementBudget); err != nil {
		return err
	}
	if res.Placements, err = countAllocs(c.Srv.State(), res.Jobs); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	h := agent.NewHTTPServer(c.Srv, nil, agent.AgentInfo{Name: "bench", Region: "global", Datacenter: "dc1"},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	// As the agent serves it: gzip for a caller that asks.
	hs := &http.Server{Handler: agent.WithGzip(h)}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	// Compression off unless ReadGzip: then the clients ask for it
	// themselves, so Go's transport leaves the body compressed.
	tr := &http.Transport{MaxIdleConnsPerHost: readClients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	// pages[client][kind] is the next_token of the client's next page
	// of a paged listing ("" the first page).
	pages := make([]map[string]string, readClients)
	urls := func(client, i int) (string, string) {
		kind := ReadEndpoints[(client+i)%len(ReadEndpoints)]
		job := jobID((client*7 + i) % res.Jobs)
		switch kind {
		case "jobs":
			return kind, base + "/v1/jobs"
		case "job":
			return kind, base + "/v1/job/" + job
		case "allocations", "nodes":
			url := base + "/v1/" + kind
			if res.ReadPage > 0 {
				url += "?per_page=" + strconv.Itoa(res.ReadPage)
				if next := pages[client][kind]; next != "" {
					url += "&next_token=" + neturl.QueryEscape(next)
				}
			}
			return kind, url
		default:
			return kind, base + "/v1/job/" + job + "?index=1&wait=5s"
		}
	}
	type sample struct {
		kind  string
		lat   time.Duration
		bytes int64
		last  bool // a paged listing's last page
	}
	results := make([][]sample, readClients)
	ctx, cancel := context.WithTimeout(context.Background(), res.Window)
	defer cancel()
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	startCPU, start := cpuTime(), time.Now()
	for cl := range readClients {
		wg.Add(1)
		pages[cl] = map[string]string{}
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				kind, url := urls(cl, i)
				req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				if res.ReadGzip {
					req.Header.Set("Accept-Encoding", "gzip")
				}
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					errOnce.Do(func() { firstErr = fmt.Errorf("GET %s: status %d, %v", url, resp.StatusCode, err) })
					return
				}
				s := sample{kind: kind, lat: time.Since(t0), bytes: n}
				if res.ReadPage > 0 && (kind == "allocations" || kind == "nodes") {
					pages[cl][kind] = resp.Header.Get("X-Nomad-NextToken")
					s.last = pages[cl][kind] == ""
				}
				results[cl] = append(results[cl], s)
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.CPUCores = (cpuTime() - startCPU).Seconds() / res.Elapsed.Seconds()
	if firstErr != nil {
		return firstErr
	}
	byKind := map[string]*ReadStat{}
	lats := map[string][]time.Duration{}
	var all []time.Duration
	for _, rs := range results {
		for _, s := range rs {
			st := byKind[s.kind]
			if st == nil {
				st = &ReadStat{Endpoint: s.kind}
				byKind[s.kind] = st
			}
			st.Count++
			st.Bytes += s.bytes
			if s.last {
				st.LastPages++
			}
			lats[s.kind] = append(lats[s.kind], s.lat)
			all = append(all, s.lat)
		}
	}
	for _, k := range ReadEndpoints {
		if st := byKind[k]; st != nil {
			st.P50, st.P99 = percentiles(lats[k])
			res.Reads = append(res.Reads, *st)
		}
	}
	res.PerSecond = float64(len(all)) / res.Elapsed.Seconds()
	res.EvalP50, res.EvalP99 = percentiles(slices.Clone(all))
	return nil
}
