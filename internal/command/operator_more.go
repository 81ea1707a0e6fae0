package command

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("operator root keyring list", rootKeyringListCmd)
	register("operator root keyring rotate", rootKeyringRotateCmd)
	register("operator root keyring remove", rootKeyringRemoveCmd)
	register("operator api", operatorAPICmd)
	register("operator metrics", operatorMetricsCmd)
	register("operator debug", operatorDebugCmd)
	register("operator snapshot inspect", snapshotInspectCmd)
	register("agent-info", agentInfoCmd)
	register("monitor", monitorCmd)
	register("ui", uiCmd)
	register("namespace inspect", namespaceInspectCmd)
	register("acl policy self", aclPolicySelfCmd)
	register("deployment unblock", deploymentUnblockCmd)
}

func keyRows(e *env, keys []*api.RootKeyMeta) [][]string {
	rows := [][]string{{"Key", "State", "Create Time", "Publish Time"}}
	for _, k := range keys {
		pub := ""
		if k.PublishTime > 0 {
			pub = e.whenNanos(k.PublishTime)
		}
		rows = append(rows, []string{e.short(k.KeyID), string(k.State), e.whenNanos(k.CreateTime), pub})
	}
	return rows
}

func rootKeyringListCmd() *cmd {
	c := &cmd{Name: "operator root keyring list", Read: true, Synopsis: "Lists the root encryption keys"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		keys, _, err := cl.Keyring().List(e.query())
		if err != nil {
			return apiError("listing the root keyring", err)
		}
		return e.output(keys, func() error {
			writeColumns(e.stdout, keyRows(e, keys))
			return nil
		})
	}
	return c
}

func rootKeyringRotateCmd() *cmd {
	var full bool
	c := &cmd{Name: "operator root keyring rotate", Read: true, Synopsis: "Rotates the root encryption key",
		Help: "Makes a new active root key; -full also re-encrypts every variable with it."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&full, "full", false, "Re-encrypt existing variables with the new key.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		k, _, err := cl.Keyring().Rotate(&api.KeyringRotateOptions{Full: full}, e.write())
		if err != nil {
			return apiError("rotating the root key", err)
		}
		return e.output(k, func() error {
			writeColumns(e.stdout, keyRows(e, []*api.RootKeyMeta{k}))
			return nil
		})
	}
	return c
}

func rootKeyringRemoveCmd() *cmd {
	var force bool
	c := &cmd{Name: "operator root keyring remove", Args: "<key ID>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Removes a root encryption key"}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&force, "force", false, "Remove the key even if it encrypted data still in use.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.Keyring().Delete(&api.KeyringDeleteOptions{KeyID: args[0], Force: force}, e.write()); err != nil {
			return apiError("removing root key "+args[0], err)
		}
		fmt.Fprintf(e.stdout, "Removed encryption key %s\n", args[0])
		return nil
	}
	return c
}

func operatorAPICmd() *cmd {
	var method, data string
	var headers strList
	c := &cmd{Name: "operator api", Args: "<path>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Query the HTTP API of the agent",
		Help: "Sends a request to the API path (e.g. /v1/jobs) with the CLI's address, token and TLS settings " +
			"and prints the body. The method is GET, or POST when -X or a body (-d, or stdin with -d @-) is given."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&method, "X", "", "The HTTP method.")
		fs.StringVar(&data, "d", "", "The request body, or @file, or @- for stdin.")
		fs.Var(&headers, "H", "A request header (Name: value). Repeatable.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		var body io.Reader
		switch {
		case data == "@-":
			body = e.stdin
		case strings.HasPrefix(data, "@"):
			b, err := os.ReadFile(data[1:])
			if err != nil {
				return err
			}
			body = bytes.NewReader(b)
		case data != "":
			body = strings.NewReader(data)
		}
		if method == "" {
			method = "GET"
			if body != nil {
				method = "POST"
			}
		}
		path := args[0]
		if i := strings.Index(path, "/v1/"); i > 0 {
			path = path[i:] // a full URL: its path and query
		}
		req, err := http.NewRequest(method, cl.Address()+path, body)
		if err != nil {
			return err
		}
		for _, h := range headers {
			k, v, ok := strings.Cut(h, ":")
			if !ok {
				return errorf("-H %q is not of the form Name: value", h)
			}
			req.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
		}
		if e.token != "" {
			req.Header.Set("X-Nomad-Token", e.token)
		}
		q := req.URL.Query()
		if e.namespace != "" && q.Get("namespace") == "" {
			q.Set("namespace", e.namespace)
		}
		if e.region != "" && q.Get("region") == "" {
			q.Set("region", e.region)
		}
		req.URL.RawQuery = q.Encode()
		resp, err := cl.Raw().Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(e.stdout, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode >= 400 {
			return exitCode(1)
		}
		return nil
	}
	return c
}

func operatorMetricsCmd() *cmd {
	var pretty, jsonOut bool
	var format string
	c := &cmd{Name: "operator metrics", Synopsis: "Retrieve the metrics of the agent",
		Help: "Prints /v1/metrics: JSON by default, or Prometheus text with -format prometheus."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&pretty, "pretty", false, "Indent the JSON.")
		fs.StringVar(&format, "format", "", "prometheus for the Prometheus text format.")
		fs.BoolVar(&jsonOut, "json", false, "JSON output (the default).")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		q := e.query()
		q.Params = map[string]string{}
		if format == "prometheus" {
			q.Params["format"] = "prometheus"
		} else if format != "" {
			return errorf("-format %q: only prometheus is known", format)
		}
		r, err := cl.Raw().Response("/v1/metrics", q)
		if err != nil {
			return apiError("reading metrics", err)
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		if pretty && format == "" {
			var buf bytes.Buffer
			if json.Indent(&buf, b, "", "    ") == nil {
				b = append(buf.Bytes(), '\n')
			}
		}
		_, err = e.stdout.Write(b)
		return err
	}
	return c
}

func agentInfoCmd() *cmd {
	c := &cmd{Name: "agent-info", Read: true, Synopsis: "Display status information about the local agent"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		self, err := cl.Agent().Self()
		if err != nil {
			return apiError("reading the agent's information", err)
		}
		return e.output(self, func() error {
			for i, section := range sortedKeys(self.Stats) {
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				fmt.Fprintln(e.stdout, section)
				stats := self.Stats[section]
				for _, k := range sortedKeys(stats) {
					fmt.Fprintf(e.stdout, "  %s = %s\n", k, stats[k])
				}
			}
			return nil
		})
	}
	return c
}

func monitorCmd() *cmd {
	var level, nodeID, serverID string
	var jsonOut bool
	c := &cmd{Name: "monitor", Synopsis: "Stream logs from a Drover agent",
		Help: "Streams the agent's log lines at -log-level (default info) until interrupted."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&level, "log-level", "", "The lowest level to stream: trace, debug, info, warn, error.")
		fs.StringVar(&nodeID, "node-id", "", "Stream the logs of the agent of this client node.")
		fs.StringVar(&serverID, "server-id", "", "Stream the logs of this server (\"leader\" for the leader).")
		fs.BoolVar(&jsonOut, "json", false, "Stream the log lines as JSON.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		q := e.query()
		q.Params = map[string]string{"log_level": level, "node_id": nodeID, "server_id": serverID}
		if jsonOut {
			q.Params["log_json"] = "true"
		}
		stop := make(chan struct{})
		defer close(stop)
		frames, errs := cl.Agent().Monitor(stop, q)
		interrupt := make(chan os.Signal, 1)
		signal.Notify(interrupt, os.Interrupt)
		defer signal.Stop(interrupt)
		for {
			select {
			case f, ok := <-frames:
				if !ok {
					return nil
				}
				if f != nil {
					e.stdout.Write(f.Data)
				}
			case err := <-errs:
				if err == nil {
					return nil
				}
				return apiError("streaming the agent's logs", err)
			case <-interrupt:
				return nil
			}
		}
	}
	return c
}

func uiCmd() *cmd {
	var showURL, authenticate bool
	c := &cmd{Name: "ui", Args: "[<identifier>]", MaxArgs: 1, Synopsis: "Open the Drover web UI",
		Help: "Prints the web UI's address (at /ui on the agent's HTTP address) and, unless -show-url, opens it in " +
			"the browser found through $BROWSER or xdg-open. An argument opens that job's (or alloc's, node's, " +
			"deployment's) page, found by ID prefix. With -authenticate, the URL carries a one-time token made " +
			"for the CLI's token (it expires in 10 minutes); the UI exchanges it and is signed in."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&showURL, "show-url", false, "Only print the URL.")
		fs.BoolVar(&authenticate, "authenticate", false, "Sign the UI in with a one-time token for the CLI's token.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		url := strings.TrimRight(cl.Address(), "/") + "/ui/"
		if len(args) == 1 {
			if p, err := e.uiPage(args[0]); err == nil {
				url += p
			} else {
				return err
			}
		}
		if authenticate {
			ott, _, err := cl.ACLTokens().UpsertOneTimeToken(e.write())
			if err != nil {
				return apiError("creating a one-time token", err)
			}
			url += "?ott=" + ott.OneTimeSecretID
			fmt.Fprintf(e.stdout, "Opening URL %q with a one-time token (it expires in 10 minutes)\n", url)
		} else {
			fmt.Fprintf(e.stdout, "Opening URL %q\n", url)
		}
		if showURL {
			return nil
		}
		return openBrowser(e, url)
	}
	return c
}

// uiPage is the UI path of the object an identifier names: a job, else an
// allocation, a node or a deployment by ID prefix.
func (e *env) uiPage(ident string) (string, error) {
	cl, _ := e.api()
	if jobs, _, err := cl.Jobs().PrefixList(ident); err == nil && len(jobs) > 0 {
		return "jobs/" + jobs[0].ID, nil
	}
	if as, _, err := cl.Allocations().PrefixList(ident); err == nil && len(as) == 1 {
		return "allocations/" + as[0].ID, nil
	}
	if ns, _, err := cl.Nodes().PrefixList(ident); err == nil && len(ns) == 1 {
		return "clients/" + ns[0].ID, nil
	}
	if ds, _, err := cl.Deployments().PrefixList(ident); err == nil && len(ds) == 1 {
		return "jobs/" + ds[0].JobID + "/deployments", nil
	}
	return "", errorf("%q names no job, allocation, node or deployment", ident)
}

func namespaceInspectCmd() *cmd {
	c := &cmd{Name: "namespace inspect", Args: "<namespace>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Inspect a namespace"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		ns, _, err := cl.Namespaces().Info(args[0], e.query())
		if err != nil {
			return apiError("reading namespace "+args[0], err)
		}
		if e.tmpl != "" {
			return e.printTemplate(ns)
		}
		return e.printJSON(ns)
	}
	return c
}

func aclPolicySelfCmd() *cmd {
	c := &cmd{Name: "acl policy self", Synopsis: "Lookup self ACL policy assignment"}
	return listTable(c, func(cl *api.Client, q *api.QueryOptions) ([]*api.ACLPolicyListStub, error) {
		ps, _, err := cl.ACLPolicies().Self(q)
		return ps, err
	}, "reading the token's policies", "No policies found", []string{"Name", "Description"},
		func(p *api.ACLPolicyListStub) []string { return []string{p.Name, p.Description} })
}

func deploymentUnblockCmd() *cmd {
	c := &cmd{Name: "deployment unblock", Args: "<deployment>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Manually unblock a multiregion deployment"}
	c.Run = func(e *env, args []string) error {
		return e.deploymentUpdate(args[0], "unblocking", func(d *api.Deployments, id string) (*api.DeploymentUpdateResponse, error) {
			r, _, err := d.Unblock(id, e.write())
			return r, err
		})
	}
	return c
}

func snapshotInspectCmd() *cmd {
	c := &cmd{Name: "operator snapshot inspect", Args: "<file>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Displays information about a snapshot file",
		Help:     "Reads a snapshot written by `drover operator snapshot save` (gzip, a header line, raft's metadata, the state) offline."}
	c.Run = func(e *env, args []string) error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := inspectSnapshot(f)
		if err != nil {
			return errorf("%s: %v", args[0], err)
		}
		return e.output(info, func() error {
			writeKV(e.stdout, [][2]string{
				{"ID", info.ID}, {"Size", fmt.Sprint(info.Size)}, {"Index", fmt.Sprint(info.Index)},
				{"Term", fmt.Sprint(info.Term)}, {"Version", fmt.Sprint(info.Version)},
				{"Format", strings.TrimSpace(info.Format)}, {"State bytes", fmt.Sprint(info.StateBytes)},
			})
			return nil
		})
	}
	return c
}

// snapshotInfo is what snapshot inspect reports.
type snapshotInfo struct {
	Format     string
	ID         string
	Index      uint64
	Term       uint64
	Size       int64
	Version    int
	StateBytes int64
}

// inspectSnapshot reads Drover's snapshot format: gzip of a magic line,
// raft's snapshot metadata as one JSON line, then the state.
func inspectSnapshot(r io.Reader) (*snapshotInfo, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("not a drover snapshot (not gzip): %v", err)
	}
	br := bufio.NewReader(zr)
	magic, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(magic, "drover-snapshot-") {
		return nil, fmt.Errorf("not a drover snapshot (bad header)")
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("truncated metadata: %v", err)
	}
	info := &snapshotInfo{Format: magic}
	if err := json.Unmarshal(line, info); err != nil {
		return nil, fmt.Errorf("metadata: %v", err)
	}
	n, err := io.Copy(io.Discard, br)
	if err != nil {
		return nil, fmt.Errorf("state: %v", err)
	}
	info.StateBytes = n
	return info, nil
}

func operatorDebugCmd() *cmd {
	var output string
	var duration, interval time.Duration
	var pprofDuration time.Duration
	c := &cmd{Name: "operator debug", Synopsis: "Build a debug archive",
		Help: "Collects the agent's self, host, members, metrics (each -interval for -duration), pprof profiles " +
			"(when the agent has enable_debug), and the cluster's state summaries (nodes, jobs, allocations, " +
			"evaluations, deployments, raft peers, autopilot health, scheduler config) into nomad-debug-<time>.tar.gz " +
			"(or -output DIR). Each item that fails is recorded in errors.txt inside the archive."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&output, "output", "", "The directory to write the archive to (default: the current one).")
		fs.DurationVar(&duration, "duration", 0, "How long to keep collecting metrics.")
		fs.DurationVar(&interval, "interval", 30*time.Second, "How often to collect metrics within -duration.")
		fs.DurationVar(&pprofDuration, "pprof-duration", time.Second, "How long the CPU profile runs.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		stamp := now().UTC().Format("2006-01-02-150405Z")
		dir := output
		if dir == "" {
			dir = "."
		}
		name := fmt.Sprintf("%s/nomad-debug-%s.tar.gz", strings.TrimRight(dir, "/"), stamp)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		zw := gzip.NewWriter(f)
		tw := tar.NewWriter(zw)
		var failures []string
		add := func(path string, body []byte) {
			_ = tw.WriteHeader(&tar.Header{Name: "nomad-debug-" + stamp + "/" + path, Mode: 0o600, Size: int64(len(body)), ModTime: now()})
			_, _ = tw.Write(body)
		}
		get := func(path, api string, q map[string]string) {
			qo := e.query()
			qo.Params = q
			r, err := cl.Raw().Response(api, qo)
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", api, err))
				return
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			if err != nil {
				failures = append(failures, fmt.Sprintf("%s: %v", api, err))
				return
			}
			add(path, b)
		}
		e.say("", "Starting debugger...")
		for _, it := range []struct{ path, api string }{
			{"agent-self.json", "/v1/agent/self"}, {"agent-host.json", "/v1/agent/host"},
			{"agent-members.json", "/v1/agent/members"}, {"leader.json", "/v1/status/leader"},
			{"peers.json", "/v1/status/peers"}, {"raft-configuration.json", "/v1/operator/raft/configuration"},
			{"autopilot-health.json", "/v1/operator/autopilot/health"},
			{"scheduler-config.json", "/v1/operator/scheduler/configuration"},
			{"nodes.json", "/v1/nodes"}, {"node-pools.json", "/v1/node/pools"}, {"jobs.json", "/v1/jobs"},
			{"allocations.json", "/v1/allocations"}, {"evaluations.json", "/v1/evaluations"},
			{"deployments.json", "/v1/deployments"}, {"namespaces.json", "/v1/namespaces"},
			{"regions.json", "/v1/regions"},
		} {
			get(it.path, it.api, nil)
		}
		for _, p := range []string{"goroutine", "heap", "allocs", "threadcreate", "block", "mutex"} {
			get("pprof/"+p+".prof", "/v1/agent/pprof/"+p, nil)
		}
		get("pprof/profile.prof", "/v1/agent/pprof/profile", map[string]string{"seconds": fmt.Sprint(max(1, int(pprofDuration.Seconds())))})
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		deadline := time.Now().Add(duration)
		for i := 0; ; i++ {
			get(fmt.Sprintf("metrics/%04d.json", i), "/v1/metrics", nil)
			get(fmt.Sprintf("metrics/%04d.prom", i), "/v1/metrics", map[string]string{"format": "prometheus"})
			if duration <= 0 || time.Now().Add(interval).After(deadline) {
				break
			}
			select {
			case <-time.After(interval): // the operator's -interval between samples
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		sort.Strings(failures)
		add("errors.txt", []byte(strings.Join(failures, "\n")+"\n"))
		if err := tw.Close(); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		e.say("", "Created debug archive: %s", name)
		if len(failures) > 0 {
			fmt.Fprintf(e.stderr, "%d item(s) could not be collected (see errors.txt in the archive)\n", len(failures))
		}
		return nil
	}
	return c
}
