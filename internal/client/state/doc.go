// Package state persists the client's view of its allocations in a bbolt
// database under the client's state dir, so a restarted client (even one
// killed with SIGKILL) finds its allocs, re-attaches to their tasks through
// the drivers' handles, and reports their states instead of failing them.
//
// Layout: bucket "allocs" holds one bucket per alloc ID with the keys
// "alloc" (the alloc as the server sent it, msgpack) and "deploy" (the
// deployment health this client computed), and a bucket "tasks" with one
// bucket per task name holding "state" (structs.TaskState) and "handle"
// (drivers.TaskHandle). Writes go through bbolt's Batch: the writes of
// many alloc and task runners share one transaction and one fsync, and what
// a write returned is on disk. DiscardWrites (the client's Destroy) drops
// the writes of a client whose state dies with it (dev agents, tests)
// without encoding them.
package state
