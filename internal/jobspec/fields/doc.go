// Package fields is Drover's contract for the official client's job
// (github.com/hashicorp/nomad/api.Job): one row per field of every api type
// reachable from api.Job, each in one of three states.
//
//   - Honoured: Drover acts on the field; the row names the test that proves
//     it. A row may honour only some values (Allow): any other value is
//     refused with the row's message (network mode "bridge", say).
//   - Refused: a job that sets the field is refused (HTTP 400 at register,
//     plan and validate; an error at file:line:col from the HCL parser),
//     naming the field and why.
//   - Warned: the job is accepted with a warning saying what is ignored and
//     why that is safe. Only for fields that cannot change where or how
//     anything runs (the job's ui block, say).
//
// Rows are keyed "Type.Field" with the api type's name (Service.CanaryTags),
// so a type used in several places (services of groups and of tasks, the
// constraints of jobs, groups and tasks) has one row per field. A refused or
// warned row covers everything beneath it (Service.Connect covers the whole
// Consul Connect tree).
//
// Check walks a job value and returns what it sets that is refused or
// warned, with the path of each (TaskGroups[0].Tasks[1].Templates[0].LeftDelim)
// and the addresses the HCL parser maps back to source positions. A field
// set to its zero value counts as unset: `sticky = false` is what Drover
// does anyway.
//
// TestEveryFieldHasARow walks api.Job by reflection and fails when a field
// reachable without crossing a refused or warned row has no row (a new
// client version's new field cannot be dropped unnoticed);
// TestEveryRowNamesAField fails on a row whose field no longer exists;
// TestHonouredRowsNameATest on a proof that is not a test in the repository.
// docs/reference/jobspec.md is generated from the rows (Markdown; go test
// -run TestReferenceDocIsCurrent -update rewrites it).
//
// The node table (node.go) does the same for the node the official client
// reads (api.Node, GET /v1/node/:id): each field is Filled (always set on
// a ready client's node), FilledWhenSet (when the node has it) or
// NotFilled (with the reason), because Nomad's CLI dereferences optional
// node fields. TestEveryNodeFieldHasARow walks api.Node by reflection;
// internal/agent's TestNodeRowsFilledByADevAgent checks a real agent's
// answer against the Filled rows (UnfilledNodeFields);
// docs/reference/node.md is generated (TestNodeReferenceDocIsCurrent).
//
// This package imports no internal package, so the parser (internal/jobspec),
// the agent and the CLI share it.
package fields
