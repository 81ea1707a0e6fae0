package server

import (
	"runtime/debug"
	"strconv"
)

// ServerGCPercent is the garbage collector's target (GOGC) in a process
// that runs a server, unless GOGC is set. A server's heap is mostly its
// state store, which lives long and changes by copying paths of its radix
// trees: each write allocates, little of it outlives the next writes, and
// the live heap the collector must mark every cycle is large. At Go's
// default of 100 a 3-server `drover bench` spent 14% of its CPU in the
// collector; at 200 it spends 8% and places about a fifth more allocs
// per second, for a heap that may grow to 3 times the live data instead
// of 2 (scenario a's peak RSS: 344 MB -> 483 MB for three servers in one
// process).
const ServerGCPercent = 200

// TuneGC sets the collector's target of a process that runs a server to
// ServerGCPercent, unless GOGC (looked up with lookupEnv) already chose
// one, and returns the target in effect (-1: collection off) and whether
// GOGC chose it. It changes process-wide state, so only the commands that
// own the process call it (drover agent with a server, drover bench), never
// server.New.
func TuneGC(lookupEnv func(string) (string, bool)) (percent int, fromEnv bool) {
	if v, ok := lookupEnv("GOGC"); ok && v != "" {
		if v == "off" {
			return -1, true
		}
		if n, err := strconv.Atoi(v); err == nil {
			return n, true
		}
		// The runtime ignores a malformed GOGC and keeps 100; so do we,
		// rather than second-guess the operator's intent.
		return 100, true
	}
	debug.SetGCPercent(ServerGCPercent)
	return ServerGCPercent, false
}
