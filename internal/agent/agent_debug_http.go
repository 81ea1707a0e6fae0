package agent

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/server"
)

// Agent debugging endpoints, served by every agent (server or client):
// /v1/agent/monitor streams its logs, /v1/agent/host describes its host,
// /v1/agent/pprof/* profiles it when enable_debug is set (or in -dev).

func (h *HTTPServer) agentDebugRoutes() {
	h.mux.HandleFunc("GET /v1/agent/monitor", h.agentMonitor)
	h.handle("GET /v1/agent/host", h.agentHost)
	h.mux.HandleFunc("GET /v1/agent/pprof/{profile}", h.agentPprof)
}

// monitorHeartbeat is how often an idle monitor sends an empty frame, so
// proxies and clients can tell a quiet agent from a dead connection.
const monitorHeartbeat = 10 * time.Second

// agentMonitor answers GET /v1/agent/monitor?log_level=&log_json=&plain=:
// the agent's log lines from now on, as stream frames (base64 Data, as
// the official client decodes them) or plain text.
func (h *HTTPServer) agentMonitor(w http.ResponseWriter, r *http.Request) {
	level, asJSON, plain, err := monitorParams(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if err := h.localAgentOnly(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	sub, cancel := h.logs.subscribe(level, asJSON)
	defer cancel()
	if plain {
		w.Header().Set("Content-Type", "text/plain")
	} else {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	enc := json.NewEncoder(w)
	tick := time.NewTicker(monitorHeartbeat)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case line := <-sub.ch:
			if plain {
				_, err = w.Write(line)
			} else {
				err = enc.Encode(&api.StreamFrame{Data: line})
			}
		case <-tick.C:
			if !plain {
				err = enc.Encode(&api.StreamFrame{})
			}
		}
		if err == nil {
			err = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

func monitorParams(r *http.Request) (level slog.Level, asJSON, plain bool, err error) {
	name := r.URL.Query().Get("log_level")
	if name == "" {
		name = "INFO"
	}
	level, ok := config.ParseLogLevel(name)
	if !ok {
		return 0, false, false, server.BadRequest("log_level: %q is not one of TRACE, DEBUG, INFO, WARN, ERROR", name)
	}
	if asJSON, err = boolParam(r, "log_json"); err != nil {
		return
	}
	plain, err = boolParam(r, "plain")
	return
}

// localAgentOnly refuses node_id / server_id naming another agent: this
// agent answers only for itself. A server is named by its name or by its
// gossip member name (name.region), as `server members` lists it.
func (h *HTTPServer) localAgentOnly(r *http.Request) error {
	q := r.URL.Query()
	if id := q.Get("node_id"); id != "" {
		if c := h.client(); c == nil || c.NodeID() != id {
			return server.BadRequest("node_id: %q is not this agent's node; send the request to that node's agent", id)
		}
	}
	if id := q.Get("server_id"); id != "" && id != h.info.Name && id != h.info.Name+"."+h.info.Region && id != "leader" {
		return server.BadRequest("server_id: %q is not this agent; send the request to that server's agent", id)
	}
	return nil
}

// agentHost answers GET /v1/agent/host: OS, network interfaces, resolver
// and hosts files, environment (secrets redacted) and disk usage.
func (h *HTTPServer) agentHost(w http.ResponseWriter, r *http.Request) (any, error) {
	if err := h.localAgentOnly(r); err != nil {
		return nil, err
	}
	id := h.info.Name
	if c := h.client(); c != nil {
		id = c.NodeID()
	}
	return &api.HostDataResponse{AgentID: id, HostData: hostData()}, nil
}

func hostData() *api.HostData {
	d := &api.HostData{OS: runtime.GOOS + " " + kernelRelease(), Environment: redactedEnv(), Disk: map[string]api.DiskUsage{}}
	d.ResolvConf = readSmallFile("/etc/resolv.conf")
	d.Hosts = readSmallFile("/etc/hosts")
	if ifaces, err := net.Interfaces(); err == nil {
		for _, ifc := range ifaces {
			addrs, _ := ifc.Addrs()
			for _, a := range addrs {
				d.Network = append(d.Network, map[string]string{"interface": ifc.Name, "address": a.String(), "flags": ifc.Flags.String()})
			}
		}
	}
	for _, path := range []string{"/", os.TempDir()} {
		var st syscall.Statfs_t
		if syscall.Statfs(path, &st) == nil {
			total := int64(st.Blocks) * st.Bsize >> 20
			free := int64(st.Bavail) * st.Bsize >> 20
			d.Disk[path] = api.DiskUsage{DiskMB: total, UsedMB: total - free}
		}
	}
	return d
}

func kernelRelease() string {
	var u syscall.Utsname
	if syscall.Uname(&u) != nil {
		return ""
	}
	var b strings.Builder
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String()
}

// readSmallFile returns a system file's text, at most 64 KiB.
func readSmallFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() && b.Len() < 64<<10 {
		b.WriteString(sc.Text())
		b.WriteByte('\n')
	}
	return b.String()
}

// redactedEnv is the agent's environment with the values of variables
// whose names suggest a secret replaced.
func redactedEnv() map[string]string {
	out := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		upper := strings.ToUpper(k)
		for _, word := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH"} {
			if strings.Contains(upper, word) {
				v = "<redacted>"
				break
			}
		}
		out[k] = v
	}
	return out
}

// agentPprof serves Go's profiles at Nomad's paths when debugging is on.
func (h *HTTPServer) agentPprof(w http.ResponseWriter, r *http.Request) {
	if !h.debug {
		h.writeError(w, r, server.NewCodedError(http.StatusForbidden, "Permission denied: profiling needs enable_debug = true in the agent configuration"))
		return
	}
	if err := h.localAgentOnly(r); err != nil {
		h.writeError(w, r, err)
		return
	}
	switch name := r.PathValue("profile"); name {
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "trace":
		pprof.Trace(w, r)
	case "goroutine", "heap", "allocs", "block", "mutex", "threadcreate":
		// The official client always sends seconds (0 for a snapshot);
		// Go's handler reads any seconds as a delta profile.
		if q := r.URL.Query(); q.Get("seconds") == "0" {
			q.Del("seconds")
			r.URL.RawQuery = q.Encode()
		}
		pprof.Handler(name).ServeHTTP(w, r)
	default:
		h.writeError(w, r, server.NotFound("no such profile: %q", name))
	}
}
