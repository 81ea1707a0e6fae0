// Package command implements drover's CLI commands (everything except agent
// and version). Commands talk to an agent only through its HTTP API, via the
// official Nomad client or raw HTTP for Drover extensions, so the same
// binary can drive a Nomad cluster and a Drover one alike.
//
// The commands: job run|plan|status|history|action|..., eval, node, alloc,
// deployment, namespace, operator, system, server, status, acl, var,
// service, event stream. drover eval status -chain ID draws an eval's tree
// through PreviousEval / NextEval / BlockedEval with each eval's timeline;
// job run follows the eval and then the deployment it started; job history
// -p shows each version's diff; job action runs a task's action; operator
// snapshot save|restore round-trips the whole state. ACL commands: acl
// bootstrap | policy apply/info/list/delete | token
// create/info/list/self/update/delete | role create/list/info/update/delete
// (token create/update take -role-id/-role-name, role info -by-name, role
// update -no-merge). Insight (insight.go, docs/insight.md): job why, job
// headroom, operator headroom, operator what-if drain|down|down-dc, node
// drain -enable -plan, and eval status's "Why Not Placed" section.
//
// Every command takes Nomad's global flags -address -region -namespace
// -token -ca-cert -ca-path -client-cert -client-key -tls-server-name
// -tls-skip-verify (env_tls.go), each defaulting to its environment variable
// (DROVER_*, then Nomad's NOMAD_*). Golden tests run every command against
// an in-process agent.
package command
