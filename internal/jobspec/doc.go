// Package jobspec parses Nomad's HCL2 job specification into the API job
// that drover job run submits and POST /v1/jobs/parse returns.
//
// It leaves unset fields nil so the server, not the parser, applies
// defaults; runtime references such as ${attr.kernel.name}, ${node.*} and
// ${NOMAD_*} are kept as literal text for the client to interpolate.
//
// What Drover does not act on is refused, not dropped: after decoding,
// Parse checks the job against the field contract (package fields) and
// reports every refused field as an error at the attribute or block that
// set it (warned ones, the ui block, as warnings); Consul, Vault, Connect,
// CSI-plugin, secret and schedule blocks are refused
// at their block with the contract's message. ParseOptions.AllowUnsupported
// turns those refusals into warnings, for tests of the decoding only;
// ParseOptions.Positions returns where each block and attribute was
// written, by api path, so the CLI can show a server's refusal at
// file:line:col.
//
// ParseFile covers every job/group/task block, variables (default <
// NOMAD_VAR_* < var files < -var), locals, the HCL function library, and
// errors as file:line:col. A task's action "name" { command, args } blocks
// become Task.Actions (a missing command or a name used twice in the task is
// an error at the block; the server validates the same and answers 400
// naming Tasks[i].Actions[j].Command / .Name). Hostile input (budget.go):
// one evaluation budget per parse (MaxGeneratedElements, 100,000) is
// charged by the elements of every list, tuple and object literal of the
// job file and its variables files (before anything is evaluated), by
// every for-expression iteration (nested ones each time they run) and by
// range/setproduct results; once spent, everything fails at once. JSON job
// files charge only functions. FuzzParse fuzzes the parser. This package
// imports no internal package but its own subpackage fields.
package jobspec
