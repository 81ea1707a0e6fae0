// Package structs is Drover's data model: jobs, task groups and tasks,
// nodes, allocations, evaluations, deployments, plans and their results, and
// the scheduler configuration, with the request and reply types that travel
// over raft and the internal RPC.
//
// Field names follow Nomad's so that conversion to and from the official API
// types (internal/agent/apiconv) stays mechanical. Every object carries a
// Namespace (default "default", which must exist); jobs a Region (default
// "global", which must be the server's). Every type has a deep Copy
// (copy.go; a reflection test fills every field and proves the copy shares
// nothing): objects read from the state store are shared and immutable, so a
// writer copies first. Canonicalize fills Nomad's defaults; Validate reports
// every problem at once as ValidationErrors with field paths
// (TaskGroups[0].Tasks[1].Driver). Validate also refuses task names ".",
// "..", "alloc" or with a path separator or NUL (validate_names.go),
// malformed version/semver constraints, group names with NUL, negative
// update deadlines and group shutdown delays, service names that are not
// RFC 1123 labels once each ${...} counts as one character, unknown
// service providers, check intervals under 1s (0 is the default), artifact
// modes other than any/file/dir, an affinity weight of 0, and task logs
// (MaxFiles * MaxFileSizeMB) not smaller than the group's ephemeral disk.
//
// The evaluation lifecycle these types carry (statuses, quasi-statuses, the
// 17 triggers and the PreviousEval / NextEval / BlockedEval pointers) is
// described in docs/design.md; eval.go holds its constants and the
// constructors of follow-up evals that set the pointers (CreateBlockedEval:
// new.PreviousEval = old.ID; CreateFailedFollowUpEval, NextRollingEval).
//
// # Encoding
//
// requests.go and encoding.go hold the raft log entry payloads and their
// type byte (MessageType; the numbers are listed in package fsm). msgpack is
// the one encoding of log entries, RPCs, snapshots and the client's local
// state. Entries and RPCs write every struct as an array of its fields
// rather than a map keyed by their names (StructArrayHandle): a plan's entry
// is a third of the size and decodes about 40 % faster on every server, and
// a follower's plan submission halves its RPC codec time. Both handles
// decode both forms, so entries and calls encoded with names still apply and
// serve. A field's position is therefore part of the format: fields of a
// struct that can be in an entry or a call are only appended, never
// inserted, reordered, renamed or removed. An older server decodes what a
// newer one wrote without the fields it does not know, a newer one an older
// entry with them zero. TestEntryFields_OnlyEverAppended (internal/fsm) and
// TestRPCFields_OnlyEverAppended (internal/server) walk every struct
// reachable from an entry type or an endpoint's arguments and reply and hold
// its fields to testdata/entry_fields.golden and testdata/rpc_fields.golden
// (internal/testutil/wirefields; -update records appended fields and refuses
// anything else). State snapshots write structs as arrays too, their
// fields held by internal/state's testdata/snapshot_fields.golden;
// snapshots of the first format, with field names, still restore.
// The plan result, the entry every server applies for every placement,
// decodes through DecodePlanResults (plan_decode.go): the request and its
// allocs are read field by field without reflection, strings and resources
// an alloc repeats from the alloc before it are decoded once, nested
// objects go to the codec, and any other shape (names, unknown fields) to
// the codec whole; TestDecodePlanResults_SameAsCodec and
// FuzzDecodePlanResults hold it to Decode (about 40 % less time and a third
// fewer allocations per entry, BenchmarkDecodePlanResults on the entries
// of a drover bench run).
// Everything non-deterministic (IDs, timestamps) is decided before an entry
// is proposed.
//
// The argument and reply types of the server's methods live in
// <family>_endpoint.go, so the same values travel in-process and over
// msgpack RPC. Reads embed QueryOptions (namespace,
// MinQueryIndex/MaxQueryTime, AllowStale, Prefix, Filter,
// PerPage/NextToken/Reverse, AuthToken) and reply with QueryMeta (Index,
// LastContact, KnownLeader, NextToken); writes embed WriteRequest and reply
// with WriteMeta (Index). Where a raft payload in requests.go holds a name
// (JobRegisterRequest), the RPC argument is ...Args. The client's RPC types
// are in client_rpc.go. Errors cross the wire with a code (RPCError,
// EncodeRPCError / DecodeRPCError, as rpc-error[CODE]: message), so a caller
// matches ErrNodeNotFound or ErrNodeRegistrationDenied with errors.Is, never by the message text.
//
// # Plans on the wire
//
// A follower's plan travels compact (Plan.Compact, plan_wire.go): without a
// copy of the job per placement (the applier never reads a placement's job;
// the state store attaches the plan's), and with placement metrics only on
// the placement of each group that the raft entry lists last, the one whose
// metrics the store keeps (KeepLastGroupMetrics; if that placement's node is
// rejected, the applier gives its metrics to the group's last accepted
// placement). The result names the nodes whose part was accepted instead of
// sending the placements back (PlanSubmitRequest.ResultByReference,
// PlanResult.ByReference / Resolve): the follower has them. In the 3-server
// bench this cut a plan's round trip from about 33 KB to 11 KB and the CPU
// spent encoding and decoding RPCs by about 70 %. A plan that would finish
// its eval carries the eval's final status (Plan.FinalEval;
// PlanResult.EvalFinished says the plan's entry wrote it: see package
// server/planapply).
//
// This package imports no other Drover package: it is the bottom of the
// dependency arrows (internal/archtest).
package structs
