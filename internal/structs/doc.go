// Package structs is Drover's data model: jobs, task groups and tasks,
// nodes, allocations, evaluations, deployments, plans and their results,
// and the scheduler configuration, with the request and reply types that
// travel over raft and the internal RPC.
//
// Field names follow Nomad's so that conversion to and from the official
// API types (internal/agent/apiconv) stays mechanical. Every type has a
// deep Copy (copy.go): objects read from the state store are shared and
// immutable, so a writer copies first. Canonicalize fills Nomad's
// defaults; Validate reports every problem at once as ValidationErrors
// with field paths.
//
// The evaluation lifecycle these types carry (statuses, quasi-statuses,
// the 17 triggers and the PreviousEval / NextEval / BlockedEval pointers)
// is described in docs/design.md; eval.go holds its constants and the
// constructors of follow-up evals that set the pointers.
//
// This package imports no other Drover package: it is the bottom of the
// dependency arrows (internal/archtest).
package structs
