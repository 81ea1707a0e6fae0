// Package jobspec parses Nomad's HCL2 job specification into the API job
// that drover job run submits and POST /v1/jobs/parse returns.
//
// It leaves unset fields nil so the server, not the parser, applies
// defaults; runtime references such as ${attr.kernel.name}, ${node.*} and
// ${NOMAD_*} are kept as literal text for the client to interpolate.
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
// imports no internal package.
package jobspec
