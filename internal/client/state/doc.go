// Package state persists the client's view of its allocations in a bbolt
// database under the client's state dir, so a restarted client (even one
// killed with SIGKILL) finds its allocs, re-attaches to their tasks through
// the drivers' handles, and reports their states instead of failing them.
//
// Layout: bucket "allocs" holds one bucket per alloc ID with the keys
// "alloc" (the alloc as the server sent it, msgpack) and "deploy" (the
// deployment health this client computed), and a bucket "tasks" with one
// bucket per task name holding "state" (structs.TaskState) and "handle"
// (drivers.TaskHandle). Every write is its own transaction: bbolt fsyncs
// on commit, so what a write returned is on disk.
package state
