package client

import (
	"slices"
	"time"

	"github.com/drover-project/drover/internal/client/allocrunner"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/rawexec"
	"github.com/drover-project/drover/internal/client/state"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// fetchBatch is how many allocs one Alloc.GetAllocs call asks for: a
// client that starts on a node with thousands of historic allocs fetches
// them in calls of bounded size.
const fetchBatch = 256

// allocSyncLoop pulls the node's allocs with blocking queries, once
// registered, and applies what changed. A pull lists each alloc's
// AllocModifyIndex only (Node.GetClientAllocIndexes); the client fetches
// the allocs whose index moved past the copy it holds (Alloc.GetAllocs)
// and drops those no longer listed, as Nomad's client does. Before, every
// pull carried every alloc of the node with its job: 54 MiB per pull on a
// node with 9,394 allocs, whose decoding missed its deadline.
func (c *Client) allocSyncLoop() {
	select {
	case <-c.registered:
	case <-c.ctx.Done():
		return
	}
	var index uint64
	failures := 0
	// known holds the AllocModifyIndex of every alloc fetched, run or not
	// (a terminal alloc is never run, and must not be fetched again).
	known := map[string]uint64{}
	for {
		resp, err := c.servers.GetAllocIndexes(c.ctx, &structs.NodeAllocsArgs{NodeID: c.nodeID, SecretID: c.secretID,
			QueryOptions: structs.QueryOptions{MinQueryIndex: index, MaxQueryTime: c.cfg.MaxQueryTime}})
		var fetched []*structs.Allocation
		if err == nil {
			fetched, err = c.fetchAllocs(c.toFetch(resp.Allocs, known), resp.Allocs)
		}
		if c.ctx.Err() != nil {
			return
		}
		if err != nil {
			failures++
			c.logger.Warn("pull allocs failed", "error", err, "attempt", failures)
			if alive, _ := c.sleep(backoff(failures, 30*time.Second), nil); !alive {
				return
			}
			continue
		}
		failures = 0
		// Every answer is applied, also one at the same index (the wait
		// ended): a garbage collected alloc moves no index, and leaves the
		// listing all the same.
		c.applyAllocs(resp.Allocs, fetched, known)
		// An index of 0 would make the next query return at once.
		index = max(resp.Index, 1)
	}
}

// toFetch lists the allocs whose index moved past the copy the client
// holds (its runner's, or the one it fetched and did not run), in ID order.
func (c *Client) toFetch(listed map[string]uint64, known map[string]uint64) []string {
	var ids []string
	c.mu.Lock()
	for id, idx := range listed {
		have := known[id]
		if r := c.runners[id]; r != nil {
			have = max(have, r.Alloc().AllocModifyIndex)
		}
		if idx > have {
			ids = append(ids, id)
		}
	}
	c.mu.Unlock()
	slices.Sort(ids)
	return ids
}

// fetchAllocs fetches allocs by ID in batches of fetchBatch. Each call
// waits until the server answering has the highest index the batch was
// listed at, so a server behind the one that answered the pull does not
// answer with older copies.
func (c *Client) fetchAllocs(ids []string, listed map[string]uint64) ([]*structs.Allocation, error) {
	var out []*structs.Allocation
	for batch := range slices.Chunk(ids, fetchBatch) {
		var at uint64
		for _, id := range batch {
			at = max(at, listed[id])
		}
		resp, err := c.servers.FetchAllocs(c.ctx, &structs.AllocsGetArgs{NodeID: c.nodeID, SecretID: c.secretID, AllocIDs: batch,
			QueryOptions: structs.QueryOptions{MinQueryIndex: at - 1, MaxQueryTime: c.cfg.MaxQueryTime}})
		if err != nil {
			return nil, err
		}
		out = append(out, resp.Allocs...)
	}
	return out, nil
}

// applyAllocs runs the new allocs among fetched, updates the changed ones
// (by AllocModifyIndex, or a changed desired status) and destroys those
// the servers no longer list.
func (c *Client) applyAllocs(listed map[string]uint64, fetched []*structs.Allocation, known map[string]uint64) {
	var added []*structs.Allocation
	for _, a := range fetched {
		if a == nil || a.ID == "" {
			continue
		}
		known[a.ID] = max(known[a.ID], a.AllocModifyIndex)
		c.mu.Lock()
		r := c.runners[a.ID]
		c.mu.Unlock()
		switch {
		case r == nil:
			added = append(added, a)
		case changed(r.Alloc(), a):
			if err := c.store.PutAlloc(a); err != nil {
				c.logger.Error("persist alloc", "alloc_id", a.ID, "error", err)
			}
			r.Update(a)
			c.resendIfUnknown(r, a)
		}
	}
	c.addAllocs(added)
	for id := range known {
		if _, ok := listed[id]; !ok {
			delete(known, id)
		}
	}
	c.mu.Lock()
	var gone []*allocrunner.Runner
	for id, r := range c.runners {
		if _, ok := listed[id]; !ok {
			gone = append(gone, r)
			delete(c.runners, id)
		}
	}
	c.mu.Unlock()
	for _, r := range gone {
		go func() {
			if err := r.Destroy(); err != nil {
				c.logger.Warn("destroy alloc", "alloc_id", r.ID(), "error", err)
			}
		}()
	}
}

// resendIfUnknown reports the alloc's real status again when the servers
// marked it unknown (they lost contact with this node): after a reconnect
// the servers must learn it still runs, or they keep treating it as gone.
func (c *Client) resendIfUnknown(r *allocrunner.Runner, a *structs.Allocation) {
	if a.ClientStatus != structs.AllocClientStatusUnknown || a.ServerTerminalStatus() {
		return
	}
	if last := r.ClientAlloc(); last != nil && last.ClientStatus != "" {
		c.batch.queue(last)
	}
}

// changed reports whether the servers' alloc differs from the runner's in
// what the client acts on. Every change of the servers' (desired status
// and transitions, such as `alloc stop -no-shutdown-delay` of an alloc
// already waiting out its shutdown_delay) moves AllocModifyIndex.
func changed(old, cur *structs.Allocation) bool {
	return cur.AllocModifyIndex > old.AllocModifyIndex || cur.DesiredStatus != old.DesiredStatus
}

// addAllocs starts runners for allocs this client has not seen, after
// persisting them in one write. One the servers already consider finished
// is not run.
func (c *Client) addAllocs(allocs []*structs.Allocation) {
	allocs = slices.DeleteFunc(allocs, (*structs.Allocation).TerminalStatus)
	if len(allocs) == 0 {
		return
	}
	if err := c.store.PutAllocs(allocs); err != nil {
		c.logger.Error("persist allocs", "allocs", len(allocs), "error", err)
	}
	for _, a := range allocs {
		r := c.newRunner(a, nil)
		c.mu.Lock()
		c.runners[a.ID] = r
		c.mu.Unlock()
		r.Run()
	}
}

func (c *Client) newRunner(a *structs.Allocation, rec *state.AllocRecord) *allocrunner.Runner {
	return allocrunner.New(allocrunner.Config{
		Alloc: a, AllocDirRoot: c.cfg.AllocDir, Drivers: c.drivers, Node: c.Node, Region: c.cfg.Region,
		Clock: c.clock, Logger: c.cfg.Logger, Store: c.store, OnUpdate: c.batch.queue, Restore: rec,
		LogPollInterval:    c.cfg.LogPollInterval,
		AllowHostArtifacts: c.cfg.Options[taskrunner.OptionAllowHostArtifacts] == "true",
		Services:           c.serviceSink(),
		Identities:         c.identitySource(),
		TemplateData:       c.templateData(),
		TaskAPI:            c.cfg.TaskAPI,
		MaxKillTimeout:     c.cfg.MaxKillTimeout,
		Network:            c.networks,
		Previous:           c.previousAlloc(a, rec),
	})
}

// previousAlloc is the alloc a new one replaces when its group's
// ephemeral_disk is sticky (or migrate) and that alloc ran on this node,
// or, with migrate, on another node (remotePrevious); a restored runner
// has already taken its data.
func (c *Client) previousAlloc(a *structs.Allocation, rec *state.AllocRecord) *allocrunner.PreviousAlloc {
	tg := a.Group()
	if rec != nil || a.PreviousAllocation == "" || tg == nil || tg.EphemeralDisk == nil ||
		!tg.EphemeralDisk.Sticky && !tg.EphemeralDisk.Migrate {
		return nil
	}
	c.mu.Lock()
	prev := c.runners[a.PreviousAllocation]
	c.mu.Unlock()
	if prev == nil {
		if tg.EphemeralDisk.Migrate {
			return c.remotePrevious(a) // on another node: fetched through its agent
		}
		c.logger.Warn("sticky ephemeral disk: the previous alloc did not run on this node; its data is not migrated (migrate = true would copy it)",
			"alloc_id", a.ID, "previous_alloc", a.PreviousAllocation)
		return nil
	}
	select {
	case <-prev.Done():
	default:
		if !prev.Alloc().ServerTerminalStatus() {
			// Both run side by side (a canary): nothing to take over.
			return nil
		}
	}
	return &allocrunner.PreviousAlloc{ID: prev.ID(), Dir: prev.AllocDir(), Done: prev.Done()}
}

// restore brings back the allocs an earlier client persisted; their task
// runners re-attach to tasks still running.
func (c *Client) restore() {
	recs, bad, err := c.store.LoadAll()
	if err != nil {
		c.logger.Error("load client state", "error", err)
	}
	for id, err := range bad {
		c.logger.Warn("dropping unreadable alloc state", "alloc_id", id, "error", err)
		_ = c.store.DeleteAlloc(id)
	}
	c.reapOrphans(recs)
	for _, rec := range recs {
		r := c.newRunner(rec.Alloc, rec)
		c.mu.Lock()
		c.runners[rec.Alloc.ID] = r
		c.mu.Unlock()
		r.Run()
	}
}

// reapOrphans kills the raw_exec task processes an earlier client started
// but no persisted handle claims (it died before it saved the handle, or
// the alloc is gone): nobody would ever stop them, and the node would run
// more than the servers placed on it.
func (c *Client) reapOrphans(recs []*state.AllocRecord) {
	var handles []*drivers.TaskHandle
	for _, rec := range recs {
		for _, tr := range rec.Tasks {
			if tr != nil && tr.Handle != nil {
				handles = append(handles, tr.Handle)
			}
		}
	}
	if killed := rawexec.ReapOrphans(c.cfg.AllocDir, handles); len(killed) > 0 {
		c.logger.Warn("killed orphaned raw_exec task processes", "process_groups", killed)
	}
}
