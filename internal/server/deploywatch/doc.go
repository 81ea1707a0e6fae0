// Package deploywatch decides, on the leader, what each active deployment
// needs next: an evaluation to take the next step of a rolling update
// (trigger deployment-watcher), success, or failure. It is a pure step
// function over deployments and the time; the leader's deployment-watcher
// duty (package server/leader) feeds it and writes what it returns through
// raft.
//
// Per running deployment, one step decides: one deployment-watcher eval when
// a step is reached (every placed alloc healthy and more placed than at the
// last step, however the health reports are spread; no PreviousEval: the
// watcher's evals start a new chain), auto-promotion of healthy canaries
// (with its eval, one entry), success (the job version is marked stable in
// the same entry), or failure on unhealthy allocs or a missed progress
// deadline (with auto_revert, the latest stable version is registered again
// in the same entry, and the eval rolls it out). The state store counts
// alloc health into the deployment; the watcher only reads it.
package deploywatch
