// Package testutil is the shared test kit: waiting on a condition with a
// deadline (WaitFor), stepping a manual clock until a condition holds
// (AdvanceUntil), checking that a goroutine is parked where it waits
// (Parked) instead of sleeping to see that it did nothing, and, in
// subpackages, fixtures (mock) and helpers that start agents and
// clusters. Only tests import it. OIDCProvider is an in-test OpenID
// Connect provider (discovery, JWKS, authorize, token, userinfo) for the
// OIDC login tests.
//
// # Waiting
//
// WaitFor(t, timeout, what, cond) is the one wait on a condition with a
// deadline; cond is func() bool or func() (bool, string) (the string says
// why not yet, and is shown on timeout). The packages' own wait helpers
// delegate to it. AdvanceUntil is WaitFor for code on a manual clock: it
// steps the clock until the condition holds. Parked(frames...) reports
// whether a goroutine with those frames is blocked on a channel, select or
// lock, so "it has not done X yet" is checked exactly instead of by sleeping. Tests never sleep to wait for something (docs/design.md,
// rule 5): they wait with WaitFor, or step components synchronously
// (clock.Manual, server Config.ManualDuties with StepDuties); a time.Sleep
// is allowed only where the test is about time passing on a real clock, with
// a comment saying so.
//
// # Subpackages
//
// mock: Node, Job, Alloc, Eval fixtures, valid as they are; each package's
// fixtures start from them and change what the test is about. agenttest:
// Start (an in-process dev agent on free ports, shut down with the test) and
// Client (the official API client for it), used by the CLI and end-to-end
// tests. wirefields: holds entry and RPC structs' field order to append-only
// changes (see package structs). benchentries: reads the raft entries
// captured from a drover bench run that the FSM's apply benchmark replays
// and the plan-results decoder's tests check.
//
// # The check
//
// scripts/check is the one check, and .ci/run runs exactly it: go vet,
// staticcheck (honnef.co/go/tools at a pinned version, through go run), then
// go test ./...; on a fresh Debian machine, as root, it first installs
// chromium for the browser tests. Deliberate staticcheck exceptions carry a
// //lint:ignore / //lint:file-ignore with the reason (Nomad's deprecated
// disconnect fields are still accepted). Fuzz targets: FuzzDecodeBody
// (agent), FuzzLoad (agent config), FuzzRPCRequest, FuzzSnapshotRestore,
// FuzzFilter (server), FuzzUnpack, FuzzTemplate (taskrunner), FuzzParse
// (jobspec, acl), FuzzParseHealthResponse (client checks). Seed corpora are
// in each package's testdata/fuzz (DROVER_WRITE_FUZZ_SEEDS=1 go test
// ./internal/server -run TestWriteFuzzSeeds regenerates the binary ones).
package testutil
