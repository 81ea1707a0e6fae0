package planapply

import "errors"

// Errors returned to the submitter of a plan.
var (
	// ErrNotLeader is returned by Enqueue on a disabled queue, and given to
	// the futures of plans still queued when the queue is disabled: only
	// the leader applies plans, so the worker must resubmit to the new one.
	ErrNotLeader = errors.New("plan queue disabled: not the leader")
	// ErrStaleToken rejects a whole plan whose evaluation is no longer
	// held by the submitter (nack timeout, redelivery, leader change): the
	// plan was computed by a worker that lost the eval, and committing it
	// could race with the worker that holds it now.
	ErrStaleToken = errors.New("plan's evaluation token is not outstanding")
	// ErrShuttingDown is given to a plan whose entry is in raft when the
	// server shuts down (Config.Stopping): the applier no longer waits for
	// the entry, which may or may not commit; the eval is not acked, and
	// the next leader finds it pending unless the entry committed it.
	ErrShuttingDown = errors.New("plan not answered: the server is shutting down (its entry may or may not commit)")
	// ErrNilPlan is returned by Enqueue for a nil plan.
	ErrNilPlan = errors.New("nil plan")
)

// Reasons a node's part of a plan is rejected (Rejection.Reason).
const (
	// ReasonNodeMissing: the node was deleted (or never existed).
	ReasonNodeMissing = "node does not exist"
	// ReasonNodeNotReady: the node is down, initializing or disconnected.
	ReasonNodeNotReady = "node is not ready for placements"
	// ReasonNodeDraining: the node is draining; it only loses work.
	ReasonNodeDraining = "node is draining"
	// ReasonNodeIneligible: the node was marked ineligible for scheduling.
	ReasonNodeIneligible = "node is not eligible for scheduling"
	// ReasonExhausted: the node's resulting allocs exceed a resource
	// dimension (Rejection.Dimension says which).
	ReasonExhausted = "resources exhausted"
	// ReasonJobGone: the plan's job was purged or stopped after the plan
	// was computed; nothing is placed for it anywhere.
	ReasonJobGone = "job was purged or stopped"
)

// Exhausted dimensions (Rejection.Dimension). The first four are the names
// structs.ComparableResources.Superset reports.
const (
	DimensionCPU     = "cpu"
	DimensionCores   = "cores"
	DimensionMemory  = "memory"
	DimensionDisk    = "disk"
	DimensionPorts   = "ports"
	DimensionDevices = "devices"
)
