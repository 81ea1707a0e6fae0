// Package taskrunner runs one task of an allocation through its driver:
// it builds the task's directories, environment and interpolated config,
// starts it, captures its logs, waits for it, applies the restart policy,
// kills it with its kill_signal and kill_timeout (after its shutdown_delay,
// shutdown_delay.go), re-attaches to it after a client restart, and
// records all of it as a structs.TaskState with Nomad's task events. The
// alloc runner decides when a task starts (its lifecycle phase) and when
// it is killed.
//
// # Prestart
//
// Artifacts (artifacts.go, archive.go, sandbox.go): http(s) or local paths,
// checksums, tar/zip unpacked with escape checks, sandboxed to the task dir;
// local sources only inside the alloc dir unless the client option
// artifact.allow_host_sources is true. Templates (templates.go) are rendered
// with text/template, their left_delimiter/right_delimiter, perms and
// uid/gid owner, and Nomad's function set without the Consul and Vault
// lookups (env = true files feed the task env): consul-template's helper,
// maths and scratch functions written from its documentation
// (template_funcs_ct.go: parseJSON, toYAML, toTOML, regexReplaceAll, loop,
// sockaddr through go-sockaddr's template package, executeTemplate...), and
// Masterminds/sprig under sprig_ names (template_funcs_sprig.go; sprig_env
// reads the task's env, not the client's). plugin and writeToFile fail, as
// Nomad's default function_denylist makes them, and so do the Consul- and
// Vault-only functions, naming what they need. The NOMAD_* environment (env.go), interpolation of
// ${NOMAD_*}, ${attr.*}, ${meta.*}, ${node.*} in config and env
// (interpolate.go), task events with Nomad's names, the restart policy
// (restart.go: attempts in an interval, delay, mode fail or delay), "Driver
// Failure" for configs or starts the driver rejects. A dispatched job's
// payload is written to local/<dispatch_payload.file> once, before the task
// first starts (payload.go). Host volumes are mounted by volumes.go.
//
// # Live templates
//
// template_funcs_nomad.go, template_watch.go (and the client's
// template_data.go): nomadVar, nomadVarExists, nomadVarList, nomadService
// (with count "key" rendezvous choice, structs.RendezvousWeight),
// nomadServices read through the client's RPC with the task's identity; each
// render records what it read and the index it saw, and a watcher blocks on
// those reads (MinQueryIndex) and renders again when one moves. Only files
// whose content changed act: a restart if any has change_mode = "restart"
// (or feeds the env), else each one's signal or script (change_script runs
// inside the task through the driver's exec, as alloc exec does), after a
// random splay; wait { min max } is consul-template's quiescence: a
// re-render waits until changes stop for min, but never longer than max
// after the first (settle); error_on_missing_key fails on missing keys; a
// once template is rendered at the task's start only.
// consul-template was not used: it reaches Nomad over the HTTP API with an
// address and token the client does not have (the client speaks RPC to
// servers), and on its own it makes a 2.4 MB hello-world binary 13.4 MB (53
// more modules; its template package alone builds an 11.2 MB binary of 291
// packages).
//
// # Workload identities and the Task API
//
// identity.go: the task's identities (the default one when exposed or
// used by templates, and every named one) are signed through the servers
// before artifacts and templates, written to secrets/nomad_token,
// secrets/nomad_<name>.jwt or their filepath (inside the task dir), and
// set as NOMAD_TOKEN / NOMAD_TOKEN_<name>. Those with a TTL are renewed
// together once half the shortest TTL has passed on the runner's clock
// (so tests step it), then their change_mode acts: restart (the restarted
// task gets the new env), signal (change_signal), noop. A task re-attached
// after a client restart gets its identities signed again and their
// renewal resumed. Template watchers read with the identity as it is at
// each read.
// task_api.go: secrets/api.sock serves Config.TaskAPI (the agent's HTTP
// API behind its Task API authentication) from the first prestart (or a
// re-attach) until the runner ends, when the socket is removed; a path too
// long for bind(2) is bound through /proc/self/fd.
//
// # Limits
//
// template_limits.go: rendered output and every string a function builds are
// capped at 10 MiB (indent, regexReplaceAll, sprig_repeat, sprig_indent
// and the sprig_rand* counts included), split, loop and the sprig
// sequences at 100,000 elements, and a hidden step function
// spliced into every range body and template body stops a render after
// 1,000,000 steps. FuzzUnpack and FuzzTemplate fuzz the unpacker and the
// renderer.
package taskrunner
