package planapply

import "github.com/drover-project/drover/internal/structs"

// AsyncRaft is a Raft that can start committing an entry and return at
// once. The pipelined applier uses it to evaluate the next plans while
// earlier entries are still being committed; a Raft without it commits
// each entry before the applier goes on, which degenerates the pipeline
// into the serial applier (what the simulator's synchronous raft wants).
type AsyncRaft interface {
	Raft
	// StartPlanResults proposes the entry and returns its future.
	StartPlanResults(req *structs.ApplyPlanResultsRequest) CommitFuture
}

// CommitFuture is one proposed entry.
type CommitFuture interface {
	// Wait blocks until the entry is committed (and applied by the local
	// FSM) or has failed, as Raft.ApplyPlanResults would have returned.
	Wait() (index uint64, err error)
}

// doneFuture is an entry whose outcome is already known.
type doneFuture struct {
	index uint64
	err   error
}

func (f doneFuture) Wait() (uint64, error) { return f.index, f.err }

// startCommit proposes req through the applier's raft: asynchronously
// when it can, else by committing it now.
func (a *Applier) startCommit(req *structs.ApplyPlanResultsRequest) CommitFuture {
	if a.async != nil {
		return a.async.StartPlanResults(req)
	}
	index, err := a.raft.ApplyPlanResults(req)
	return doneFuture{index, err}
}
