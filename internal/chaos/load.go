package chaos

import (
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"
)

// ackedWrite is the last acknowledged write to one job: the raft index it
// was acknowledged at and whether it stopped the job.
type ackedWrite struct {
	index   uint64 // the job's JobModifyIndex it was acknowledged at (0: not checked)
	applied uint64 // the raft index a server must reach before it is checked
	stopped bool
	// unsure is set when a later write to the job failed: it may or may
	// not have applied, so only the index is checked, not the stop flag.
	unsure bool
	// purged: the last acknowledged write purged the job; mayBePurged:
	// a later purge failed, and may have applied all the same.
	purged, mayBePurged bool
}

// load drives writes from a few goroutines, each owning its jobs so the
// writes to one job are sequential and acknowledgements are comparable.
type load struct {
	h *harness
	// paused is write-held while the harness checks, so the writes it
	// checks are the writes acknowledged so far.
	paused sync.RWMutex
	mu     sync.Mutex
	writes map[string]ackedWrite
	count  int
	// ackTimes is when each write was acknowledged, in order.
	ackTimes []time.Time
	purges   int
	done     chan struct{}
	wg       sync.WaitGroup
}

// loadWriters write mock-driver jobs to the simulated nodes; one more
// writer writes raw_exec jobs to the real clients (when there are any).
const loadWriters = 6

func startLoad(h *harness) *load {
	l := &load{h: h, writes: map[string]ackedWrite{}, done: make(chan struct{})}
	writers := loadWriters
	if len(h.clients) > 0 {
		writers++
	}
	for w := 0; w < writers; w++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.run(w)
		}()
	}
	return l
}

func (l *load) stop() {
	select {
	case <-l.done:
		return
	default:
		close(l.done)
	}
	l.wg.Wait()
}

func (l *load) ack(jobID string, index, applied uint64, stopped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes[jobID] = ackedWrite{index: index, applied: max(index, applied), stopped: stopped}
	l.count++
	l.ackTimes = append(l.ackTimes, time.Now())
}

// writeGap is the longest stretch in [from, to] without an acknowledged
// write (from counts as one), and the time from elected to the first
// acknowledgement after it (0 for a zero elected).
func (l *load) writeGap(from, elected, to time.Time) (gap, resumed time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	last := from
	resumed = -1
	for _, t := range l.ackTimes {
		if t.Before(from) || t.After(to) {
			continue
		}
		gap = max(gap, t.Sub(last))
		last = t
		if resumed < 0 && !elected.IsZero() && !t.Before(elected) {
			resumed = t.Sub(elected)
		}
	}
	gap = max(gap, to.Sub(last))
	return gap, max(resumed, 0)
}

// purged records an acknowledged purge of jobID at raft index applied.
func (l *load) purged(jobID string, applied uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes[jobID] = ackedWrite{applied: applied, purged: true}
	l.count++
	l.purges++
	l.ackTimes = append(l.ackTimes, time.Now())
}

func (l *load) purgeCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.purges
}

func (l *load) failed(jobID string, purge bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if w, ok := l.writes[jobID]; ok {
		w.unsure = true
		w.mayBePurged = w.mayBePurged || purge
		l.writes[jobID] = w
	}
}

func (l *load) acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}

func (l *load) snapshot() map[string]ackedWrite {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]ackedWrite, len(l.writes))
	for k, v := range l.writes {
		out[k] = v
	}
	return out
}

// run loops over its own jobs: register, update, scale, stop.
func (l *load) run(writer int) {
	const jobsPerWriter = 6
	version := map[string]int{}
	for i := 0; ; i++ {
		select {
		case <-l.done:
			return
		case <-time.After(30 * time.Millisecond):
		}
		l.paused.RLock()
		l.one(writer, jobsPerWriter, version)
		l.paused.RUnlock()
	}
}

// one makes one write and records its acknowledgement.
func (l *load) one(writer, jobsPerWriter int, version map[string]int) {
	{
		srvs := l.h.writable()
		if len(srvs) == 0 {
			return
		}
		c := srvs[l.h.intn(len(srvs))].api
		id := fmt.Sprintf("load-%d-%d", writer, l.h.intn(jobsPerWriter))
		job := loadJob
		if writer == loadWriters {
			id, job = fmt.Sprintf("raw-%d", l.h.intn(jobsPerWriter)), rawJob
		}
		var (
			index, applied uint64
			stopped        bool
			purging        bool // the failed write was a purge
			err            error
		)
		switch op := l.h.intn(10); {
		case op < 5: // register or update (a new version each time)
			version[id]++
			var resp *api.JobRegisterResponse
			resp, _, err = c.Jobs().Register(job(id, 1+l.h.intn(3), version[id]), nil)
			if err == nil {
				index = resp.JobModifyIndex
			}
		case op < 8: // scale
			count := 1 + l.h.intn(4)
			var resp *api.JobRegisterResponse
			resp, _, err = c.Jobs().Scale(id, "g", &count, "chaos", false, nil, nil)
			if err == nil {
				index = resp.JobModifyIndex
			}
		case op == 8: // purge, then register the same ID again at once:
			// the old incarnation's allocs must all stop
			var meta *api.WriteMeta
			if _, meta, err = c.Jobs().Deregister(id, true, nil); err != nil {
				purging = true
				break
			}
			l.purged(id, meta.LastIndex)
			version[id]++
			var resp *api.JobRegisterResponse
			resp, _, err = c.Jobs().Register(job(id, 1+l.h.intn(3), version[id]), nil)
			if err == nil {
				index = resp.JobModifyIndex
			}
		default: // stop
			// A stop is checked by the job's Stop flag: stopping a stopped
			// job changes nothing, so its index proves nothing.
			var meta *api.WriteMeta
			_, meta, err = c.Jobs().Deregister(id, false, nil)
			if err == nil {
				applied, stopped = meta.LastIndex, true
			}
		}
		if err != nil {
			l.failed(id, purging)
			return
		}
		l.ack(id, index, applied, stopped)
	}
}

// loadJob is a small mock-driver service job; version changes its meta so
// each register is a new job version.
func loadJob(id string, count, version int) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	job.Meta = map[string]string{"version": fmt.Sprint(version)}
	tg := api.NewTaskGroup("g", count)
	task := api.NewTask("t", "mock")
	task.Config = map[string]any{"run_for": "1h"}
	task.Resources = &api.Resources{CPU: ptr(100), MemoryMB: ptr(64)}
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

// rawJob is a raw_exec service job for the real clients: a real task
// process (sleep) per alloc; version changes its env, so each register
// replaces the allocs (a destructive update: tasks stop and start).
func rawJob(id string, count, version int) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"dc1"}
	job.Constrain(api.NewConstraint("${attr.driver.raw_exec}", "=", "1"))
	tg := api.NewTaskGroup("g", count)
	task := api.NewTask("t", "raw_exec")
	task.Config = map[string]any{"command": "/bin/sleep", "args": []string{"3600"}}
	task.Env = map[string]string{"VERSION": fmt.Sprint(version)}
	task.KillTimeout = ptr(time.Second)
	task.Resources = &api.Resources{CPU: ptr(20), MemoryMB: ptr(16)}
	tg.AddTask(task)
	job.AddTaskGroup(tg)
	return job
}

func probeJob(id string) *api.Job { return loadJob(id, 1, 1) }

func ptr[T any](v T) *T { return &v }
