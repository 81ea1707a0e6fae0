// Package client is the client agent core: it fingerprints the machine
// into a Node (with a node ID kept in the data dir across restarts),
// registers it with the servers and heartbeats within the TTL they hand
// out, re-registers when the fingerprint changes, pulls its allocations
// with blocking queries, runs each in an alloc runner, and reports client
// status and task states back in batches. Its state (allocs, task states,
// driver handles) lives in a bbolt file so a restarted client re-attaches
// to the tasks it left running.
//
// It reaches the servers only through the Servers interface, so it never
// imports the server side (the lead's RPC adapter implements it).
package client
