// Package agent runs a Drover agent (server and/or client) and serves
// Nomad's HTTP API, converting between api types and internal structs at the
// boundary.
//
// # The agent
//
// drover agent -dev starts a dev server and client (HTTP on 127.0.0.1:4646);
// drover agent -config FILE (HCL or JSON, repeatable, directories allowed;
// package agent/config) starts from Nomad's agent keys. Every key Nomad
// documents is honoured, refused (the agent does not start; one error per
// key at its file:line:col) or warned (logged at start by New): the table
// is config.Keys, rendered in docs/reference/agent-config.md. The agent
// carries the keys to where they act: serverConfig (server timings, GC,
// raft_multiplier, default_scheduler_config, autopilot, gossip encrypt and
// serf addresses), clientConfig (host networks, dynamic ports, resources,
// max_kill_timeout, automatic GC), startTelemetry (the telemetry block's
// sinks, package telemetry), and NewLogger (logging.go: log_json, log_file
// rotated by logfile.go, log_include_location, enable_syslog). Reload
// (reload.go; SIGHUP in cmd/drover) applies what Nomad reloads: log_level
// through WithLogLevel's level variable, and the TLS certificate, which
// every TLS configuration presents through a callback (agent_tls.go).
// drover agent -dev -config F layers only what F sets over
// the dev config (config.LoadDev), so it stays on 127.0.0.1 unless F sets
// bind_addr. Logs are structured (log/slog). A port of 0 picks a free one
// (the listener's real address is what the agent advertises and the server's
// raft address; a listener on 0.0.0.0 advertises the machine's private IP,
// advertise { rpc } overrides it). SIGINT/SIGTERM shut down cleanly within
// 10 s: the HTTP API stops accepting and ends every request's context
// (http.Server.BaseContext: blocking queries, log follows and monitors
// answer at once) and drains while the client stops, then the server stops
// (its goroutines, then raft) and its stores close. Agent.Shutdown is
// bounded by its context: past it, it logs what it still waits for (the
// parts, and the server's goroutines and leader duties by name,
// server.Server.Waiting) and returns, and the agent exits anyway; raft's
// log already holds every acknowledged write. A second signal exits at
// once. As in Nomad (leave_on_interrupt and leave_on_terminate default to
// false), a signal does not make a server leave the raft configuration;
// with them, ShutdownOnSignal leaves first (Leave: a leader hands
// leadership over, then the server leaves gossip and the others drop it
// from raft at once).
//
// # The HTTP layer
//
// Go 1.22 http.ServeMux patterns; the handlers live in one file per resource
// (job_http.go, eval_http.go, alloc_http.go, node_http.go, status_http.go,
// ...), and the cluster API's routes in one table (serverRouteTable in
// routes.go: method, path, handler, and the server method the route calls,
// by; putOrPost for writes). There is one path from HTTP to the state:
// handler -> server method (server.Method.Call: ACL, then forward or answer)
// -> state store; this package may not import internal/state (archtest). A
// handler only parses (parseQuery for the options of every read,
// writeRequest for every write, decodeBody for bodies), calls the method
// with r.Context(), writes the headers (setMeta: X-Nomad-Index,
// X-Nomad-KnownLeader, X-Nomad-LastContact, X-Nomad-NextToken; setIndex for
// writes) and converts the reply to the nomad/api types (apiconv). Most
// reads are one call to readEndpoint (read_endpoint.go: the URL's options
// into the request, the method, setMeta) and a conversion (listOf for a
// listing, never null; oneOf for one object or a 404). Writes take PUT or
// POST alike (handleWrite). Bodies are decoded strictly (unknown fields,
// trailing data, bodies over 8 MiB -> 4xx naming the problem). Lists support
// prefix, filter, per_page / next_token (the key of the next page's first
// item: the ID, or namespace.id for jobs), reverse, and namespace=*; the
// sub-listings (a job's, node's, eval's or deployment's allocs, a job's
// evals, versions and deployments), namespaces and node pools apply none
// of filter, per_page, next_token and reverse and refuse them by name. A
// client-only agent serves /v1/client/* and /v1/agent/* itself and forwards
// every other /v1 path to a server over its client's RPC connection (an
// HTTP stream on the yamux session, server_forward_http.go): the caller's
// token goes along and the server's agent checks it.
//
// The whole-reply cache (list_reply_cache.go, 128 MB): /v1/jobs,
// /v1/allocations and /v1/nodes keep each reply's exact bytes by request
// shape, stamped with the tables' index, and answer a repeat of an
// unchanged listing by writing them (sendfile from a memory file for big
// ones). An entry is keyed by the caller's view, never its token
// (list_reply_view.go): derived per request from the freshly resolved
// ACL, it is "" (unfiltered) with ACLs off, for management, for a
// caller with node read (nodes) or with the capability in the one
// namespace asked for (jobs: list-jobs, allocations: read-job), and with
// namespace=* for a caller allowed everywhere; otherwise the namespaces
// the state has (at the namespaces table's index) where the capability is
// allowed, with acl.NamespaceOperationElsewhere (how the ACL decides on
// other names: allocs outlive a deleted namespace). Callers who see the
// same share an entry; a caller the endpoint refuses (unknown or deleted
// token, no capability) goes the uncached way to its 403, never kept, and
// a reply built while the ACL tables changed is sent but not kept. It
// serves where the endpoint answers from this server's own state: a
// leader past its barrier, and any server that has replayed its log for
// a ?stale read (KnownLeader and LastContact its own, per request).
// Tests compare every shape, cached and uncached (the off switch), for
// tokens of every kind (list_reply_view_test.go).
//
// ACLs on HTTP (acl_authz.go, acl_rules.go): a cluster route whose handler
// is one method call names that method (serverRoute.by) and is checked by it
// alone; for every other route ServeHTTP checks the rule aclRules gives the
// matched route before any handler runs, which covers the agent's own routes
// (client fs/logs/stats/signal/restart/gc/checks in the alloc's namespace:
// read-fs, read-logs, read-job, alloc-lifecycle;
// /v1/client/stats|metadata|gc node read/write; /v1/agent/* and /v1/metrics
// agent read, pprof agent write; snapshots management; an alloc's
// /v1/client/allocation/:id/snapshot read-fs or the alloc's migrate token,
// client_snapshot_http.go); an unlisted route
// needs management and TestACLRules_EveryRouteHasARule scans the sources for
// one. A client-only agent resolves tokens with ACL.ResolveToken over RPC
// and compiles the same ACL. The agent's own routing lookups (which node
// runs an alloc) use Server.Auth().InternalToken(). An agent running both
// roles gives its client Server.Auth().AgentNodeCredential to register
// with (client_agent.go), so it needs no node_registration_token; -dev
// also draws a random one shared by its server and client
// (node_credential.go). acl_matrix_test.go: 105
// endpoint calls x 16 tokens (1680 cells, ACL roles included) through the
// official client, then the 1024 cells that reach a server method again with
// the HTTP route checks off; every ungranted call is 403 "Permission
// denied", every granted one is not.
//
// # Endpoints
//
// GET/PUT/POST /v1/jobs, GET/PUT/POST/DELETE /v1/job/:id,
// /v1/job/:id/{versions,evaluations,allocations}, POST /v1/jobs/parse (HCL2
// through internal/jobspec), GET /v1/evaluations, /v1/evaluation/:id
// (related=true adds the chain of linked evals; an extra Timeline field),
// /v1/evaluation/:id/allocations, /v1/allocations, /v1/allocation/:id,
// /v1/nodes, /v1/node/:id, /v1/node/:id/allocations,
// /v1/status/{leader,peers}, /v1/agent/{self,health}, /v1/metrics (package
// telemetry), GET /v1/event/stream (package server/stream), PUT
// /v1/system/gc, job actions
// (/v1/job/:id/{plan,evaluate,revert,scale,summary,periodic/force}, task
// actions /v1/job/:id/actions and /v1/job/:id/action, /v1/validate/job),
// POST /v1/allocation/:id/stop, deployments (/v1/deployments,
// /v1/deployment/:id, /allocations/:id, /promote/:id, /fail/:id, /pause/:id,
// /allocation-health/:id,
// /v1/job/:id/deployment(s)), node drain and eligibility,
// /v1/operator/scheduler/configuration (GET/PUT, ?cas=),
// /v1/operator/raft/configuration, /v1/operator/snapshot (GET save, PUT
// restore), DELETE /v1/evaluations, /v1/job/:id/dispatch,
// /v1/job/:id/versions?diffs=true (package agent/jobdiff), the ACL,
// namespace, variables, services and keyring routes, and the client
// endpoints below.
//
//   - Search (search_http.go, server's search_endpoint.go, search_fuzzy.go):
//     POST /v1/search (IDs by prefix per context, 20 per context with
//     truncation flags) and /v1/search/fuzzy (names inside jobs: groups,
//     tasks, services, images, commands; nodes, classes, pools; best match
//     first, scoped as Nomad scopes them).
//   - Job history (job_history_http.go, server's job_history_endpoint.go,
//     state's job_history.go): GET /v1/job/:id/scale (per-group counts and
//     the newest 20 scaling events, written in the same entry as the scale),
//     GET /v1/job/:id/submission?version= (the source a version was
//     submitted as, kept and pruned with the versions), PUT
//     /v1/job/:id/stable, PUT/DELETE /v1/job/:id/versions/:name/tag (a
//     tagged version outlives the version cap). Job list stubs carry each
//     job's JobSummary, and a job list's filter sees the whole job (Periodic
//     is not nil).
//   - Node pools (node_pool_http.go, server's node_pool_endpoint.go, state's
//     node_pools.go): /v1/node/pools, /v1/node/pool/:name (+ /jobs, /nodes).
//     all and default are built in (never stored); a node registering into
//     an unknown pool creates it; a job in a pool that does not exist is
//     refused. GET /v1/node/:id/allocations and GET /v1/node/pool/:name
//     share one ServeMux pattern (nodeSubresource), which refuses to
//     register the overlapping pair.
//   - Namespaces (namespace_http.go): GET /v1/namespaces,
//     GET/PUT/POST/DELETE /v1/namespace/:name, PUT/POST /v1/namespace;
//     delete refuses default and namespaces with jobs (checked again in the
//     FSM).
//   - Eval count and regions: GET /v1/evaluations/count, GET /v1/regions.
//   - A write naming its object in both the URL and the body (DeploymentID,
//     JobID, Target.Job, NodeID, Name, Path) refuses a body naming another
//     one with a 400 naming the field (pathIDMatches), as Nomad does.
//   - Every agent (server or client-only) answers /v1/agent/self (with
//     stats.client, including node_id, when it runs a client),
//     /v1/agent/health, /v1/agent/monitor (log lines at any level, from a
//     tee of the agent's slog handler that never blocks logging),
//     /v1/agent/host (secret-looking environment values redacted) and
//     /v1/agent/pprof/* (only with enable_debug, or in -dev).
//   - Node-level client endpoints (client_node_http.go, client_gc_http.go):
//     /v1/client/stats (host CPU per core since the previous sample, memory,
//     disks: client/hoststats), GET/POST /v1/client/metadata (dynamic node
//     meta kept in the client's state, applied by registering again),
//     /v1/client/gc and /v1/client/allocation/:id/gc (finished allocs only),
//     /v1/client/allocation/:id/checks. They answer for ?node_id= (default:
//     this agent's client); a server agent forwards a request for another
//     node to that node's agent.
//
// # Client endpoints
//
// /v1/client/fs/{logs,ls,stat,cat,readat}/:alloc and
// /v1/client/allocation/:id/{stats,restart,signal} in Nomad's shapes (logs
// as JSON stream frames or plain text across rotated files, follow with
// heartbeat frames). Paths are opened with openat2 RESOLVE_BENEATH
// (alloc_open.go; an O_NOFOLLOW walk where openat2 is missing) and only the
// opened file is served, so a symlink out of the alloc dir is refused even
// when a task swaps it in mid-request. An agent without the alloc but with a
// server proxies the request to the alloc's node (Node.HTTPAddr: the agent's
// advertise { http }, else its listener's address); a forwarded request is
// never forwarded again.
//
// /v1/client/fs/stream/:alloc (alloc fs -f) follows one file of the alloc
// dir as stream frames (origin, offset, follow on by default, plain),
// reusing the log streamer and the same hardened open.
// /v1/client/allocation/:id/exec (client_exec_http.go) is Nomad's exec
// websocket (gorilla/websocket): JSON frames, stdin/stdout/stderr base64,
// {"exited":true,"result":{"exit_code":N}} last, errors as a close frame
// carrying the message. Drivers that can run commands inside a task
// implement drivers.Execer (see package drivers). tty=true runs the command
// on a fresh pty (docker: the exec's own terminal), resized by the session's
// tty_size frames. Task actions (job_task_action_http.go): GET
// /v1/job/:id/actions lists the job's task action blocks with their task and
// group (read-job), and the websocket GET
// /v1/job/:id/action?action=&allocID=&task= (alloc-exec) looks the action up
// in the alloc's own job version and runs its command and args through the
// same exec session, ignoring any command the caller sends; when the alloc
// runs elsewhere the server agent forwards it to the node's agent as a plain
// exec request, since a client-only agent cannot resolve actions (it forwards
// the route, websocket included, to a server). Restart or
// signal of a task that is not running (e.g. between restarts) is a 409
// (client.ErrTaskNotRunning). POST /v1/validate/job also decodes every
// task's config with the built-in driver's schema
// (drivers/builtin/validate.go): errors name task and field, and
// DriverConfigValidated is true when every task uses a built-in driver.
//
// # Compression
//
// http_gzip.go: a reply is gzipped (BestSpeed) when the caller sends
// Accept-Encoding: gzip, as Nomad's server does; the official client always
// asks and unzips. Flush is a compressor sync flush, so streams stream;
// websocket upgrades, HEAD, 204/304, already-encoded and octet-stream
// (snapshot) replies are left alone. A listing answered from the
// whole-reply cache (list_reply_cache.go) is compressed once per kept
// reply, by the first request that asks for gzip, and kept beside the
// plain reply (list_reply_gzip.go): the official client's repeat of a
// 32 MB alloc listing no longer costs the compressor's ~100 ms each time.
// A listing too big to keep plain (over a quarter of the cache, 32 MiB:
// 50,000 allocs with their task states) is kept gzip'd alone, written
// straight through the compressor into a memory file, for the callers
// that ask for gzip; a plain caller gets it built anew.
// BenchmarkBlockingJobWaiters measures
// 1,000 blocking waiters on different jobs (idle CPU, wake-up per write).
//
// # Hostile input
//
// http_limits.go: read-header 10 s and idle 2 min on the server; per request
// (http.ResponseController) a body deadline of 1 min (30 min for snapshots)
// and a write deadline of 2 min, 12 min for blocking queries (?index=, 10
// min max wait + jitter), none for streams (logs follow, event stream,
// monitor, pprof, exec, snapshot). Connections per client IP are capped
// (limits { http_max_conns_per_client = 100 }). With tls { http }, each
// connection's TLS handshake runs in its own goroutine before the HTTP
// server sees it (https_handshake.go) and must finish within limits {
// https_handshake_timeout = "5s" }; with 0, the read-header timeout bounds
// it, as http.Server does. A snapshot restore (PUT /v1/operator/snapshot) is
// capped (server.MaxSnapshotBytes, 1 GiB, upload and decompressed), spooled
// to a temp file, its metadata checked, and restored into a scratch state
// store before raft sees it, so a bad snapshot is a 400. FuzzDecodeBody and
// FuzzLoad (agent config) fuzz the body decoder and the configuration.
//
// # Native services
//
// GET /v1/services (one stub per namespace: names and the union of tags),
// GET /v1/service/:name (choose=N|key: rendezvous hashing,
// structs.RendezvousWeight; each row's Health as an extra field), DELETE
// /v1/service/:name/:id, /v1/job/:id/services, /v1/allocation/:id/services;
// blocking queries on all. A service row is one alloc's service { provider =
// "nomad" } block (group or task): name, tags, address (address, else the
// port's host IP, else the node's unique.network.ip-address), port, alloc,
// node, job, namespace, datacenter. CLI: drover service list|info|delete
// (info shows each row's health; -verbose every field).
package agent
