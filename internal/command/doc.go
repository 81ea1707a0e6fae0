// Package command implements drover's CLI commands (everything except agent
// and version). Commands talk to an agent only through its HTTP API, via the
// official Nomad client or raw HTTP for Drover extensions, so the same
// binary can drive a Nomad cluster and a Drover one alike.
//
// The commands are Nomad CE's, with Nomad's names, flags, defaults, exit
// codes and output layout (testdata/nomad_ce_commands.txt lists them, from
// Nomad's command reference; cmd/drover's TestNomadCommands_EveryOneExistsInDrover
// finds each). Those Drover refuses on purpose (auth methods, CSI volumes,
// Consul/Vault setup, offline raft tools...) are in refused.go: they exist,
// print why, and exit 1. docs/reference/cli.md is generated from the
// definitions (Reference, TestCLIReference_UpToDate).
//
// Beyond Nomad's output: drover eval status -chain ID draws an eval's tree
// through PreviousEval / NextEval / BlockedEval with each eval's timeline;
// job run follows the eval and then the deployment it started, as do job
// revert, job scale (shapes_deploy.go), job promote and deployment promote;
// node drain follows the drain with the official client's drain monitor;
// job restart works in batches; alloc exec runs over the exec websocket
// with the terminal in raw mode (term_unix.go) and an ssh-like escape;
// alloc fs and alloc logs tail and follow; tls ca/cert create write what
// tls {} needs; operator debug bundles the agent's and cluster's state
// into a tar.gz; fmt formats HCL with hclwrite. TestOperatorDay runs a day
// of operator work with drover alone against an agent.
// Insight (insight.go, docs/insight.md): job why, job headroom, operator
// headroom, operator what-if drain|down|down-dc, node drain -enable -plan,
// and eval status's "Why Not Placed" section.
//
// Every command takes Nomad's global flags -address -region -namespace
// -token -ca-cert -ca-path -client-cert -client-key -tls-server-name
// -tls-skip-verify (env_tls.go), each defaulting to its environment variable
// (DROVER_*, then Nomad's NOMAD_*). Golden tests run every command against
// an in-process agent.
package command
