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

// allocSyncLoop pulls the node's allocations with blocking queries, once
// registered, and applies what changed.
func (c *Client) allocSyncLoop() {
	select {
	case <-c.registered:
	case <-c.ctx.Done():
		return
	}
	var index uint64
	failures := 0
	for {
		resp, err := c.servers.GetAllocs(c.ctx, &structs.NodeAllocsArgs{NodeID: c.nodeID, SecretID: c.secretID,
			QueryOptions: structs.QueryOptions{MinQueryIndex: index, MaxQueryTime: c.cfg.MaxQueryTime}})
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
		if resp.Index == index && index > 0 {
			continue // the query timed out with nothing new
		}
		c.applyAllocs(resp.Allocs)
		// An index of 0 would make the next query return at once.
		index = max(resp.Index, 1)
	}
}

// applyAllocs runs new allocs, updates changed ones (by AllocModifyIndex,
// or a changed desired status) and destroys those the servers dropped.
func (c *Client) applyAllocs(allocs []*structs.Allocation) {
	seen := make(map[string]bool, len(allocs))
	var added []*structs.Allocation
	for _, a := range allocs {
		if a == nil || a.ID == "" {
			continue
		}
		seen[a.ID] = true
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
	c.mu.Lock()
	var gone []*allocrunner.Runner
	for id, r := range c.runners {
		if !seen[id] {
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
// what the client acts on. A desired transition moves only ModifyIndex in
// Drover's store (Nomad's also moves AllocModifyIndex), so the one
// transition the client acts on, `alloc stop -no-shutdown-delay` on an
// alloc already waiting out its shutdown_delay, is compared itself.
func changed(old, cur *structs.Allocation) bool {
	return cur.AllocModifyIndex > old.AllocModifyIndex || cur.DesiredStatus != old.DesiredStatus ||
		taskrunner.NoShutdownDelay(cur) != taskrunner.NoShutdownDelay(old)
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
		Identity:           c.identitySource(),
		TemplateData:       c.templateData(),
	})
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
