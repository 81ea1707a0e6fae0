package allocrunner

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// Registration IDs of the delay tests' alloc: a group service and one
// service of task "web".
const (
	regFront = "_nomad-task-a1-group-g-front-"
	regAdmin = "_nomad-task-a1-web-admin-"
)

// delayHarness runs alloc a1 of group g (shutdown_delay groupDelay,
// service "front") with tasks "web" (shutdown_delay webDelay, service
// "admin") and "side" (no delay, no service), both on the mock driver
// until killed, on a manual clock, recording what the runner hands the
// catalog.
type delayHarness struct {
	t     *testing.T
	clock *clock.Manual
	r     *Runner
	alloc *structs.Allocation

	mu   sync.Mutex
	regs []string // IDs of the last hand-over to the catalog
	// ended is set once the test shut the runner down or destroyed it
	// itself.
	ended bool
}

func runDelayed(t *testing.T, groupDelay, webDelay time.Duration) *delayHarness {
	t.Helper()
	h := &delayHarness{t: t, clock: clock.NewManual(epoch)}
	reg, err := drivers.NewRegistry(map[string]drivers.Factory{mock.Name: mock.New}, nil, drivers.Env{Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	web := &structs.Task{Name: "web", Driver: mock.Name, Config: map[string]any{}, KillTimeout: time.Second, ShutdownDelay: webDelay,
		Services: []*structs.Service{{Name: "admin", Provider: structs.ServiceProviderNomad}}}
	side := &structs.Task{Name: "side", Driver: mock.Name, Config: map[string]any{}, KillTimeout: time.Second}
	tg := &structs.TaskGroup{Name: "g", Count: 1, Tasks: []*structs.Task{web, side}, ShutdownDelay: &groupDelay,
		Services:      []*structs.Service{{Name: "front", Provider: structs.ServiceProviderNomad}},
		RestartPolicy: &structs.RestartPolicy{Interval: time.Minute, Mode: structs.RestartPolicyModeFail}}
	h.alloc = &structs.Allocation{ID: "a1", Namespace: "default", JobID: "j", TaskGroup: "g", DesiredStatus: structs.AllocDesiredStatusRun,
		Job: &structs.Job{ID: "j", Name: "j", Type: structs.JobTypeService, Namespace: "default", TaskGroups: []*structs.TaskGroup{tg}}}
	h.r = New(Config{Alloc: h.alloc, AllocDirRoot: t.TempDir(), Drivers: reg, Clock: h.clock,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Node:     func() *structs.Node { return &structs.Node{ID: "n1", Datacenter: "dc1"} },
		Services: h.onServices})
	h.r.Run()
	t.Cleanup(func() {
		if !h.ended {
			_ = h.r.Destroy()
		}
	})
	h.waitFor("both tasks running, every service registered", func() (bool, string) {
		return h.state("web").State == structs.TaskStateRunning && h.state("side").State == structs.TaskStateRunning &&
			h.registered() == regFront+","+regAdmin, h.describe()
	})
	return h
}

func (h *delayHarness) onServices(_ string, regs []*structs.ServiceRegistration) {
	var ids []string
	for _, r := range regs {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	h.mu.Lock()
	h.regs = ids
	h.mu.Unlock()
}

func (h *delayHarness) registered() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.regs, ",")
}

func (h *delayHarness) state(task string) *structs.TaskState { return h.r.Task(task).State() }

func (h *delayHarness) describe() string {
	return fmt.Sprintf("at +%v: web %s %v, side %s %v, catalog [%s]", h.clock.Now().Sub(epoch),
		h.state("web").State, eventTypes(h.state("web")), h.state("side").State, eventTypes(h.state("side")), h.registered())
}

func (h *delayHarness) waitFor(what string, cond func() (bool, string)) {
	h.t.Helper()
	testutil.WaitFor(h.t, 10*time.Second, what, cond)
}

// stop hands the runner the server's stop, with -no-shutdown-delay when
// noDelay is set.
func (h *delayHarness) stop(noDelay bool) {
	a := h.alloc.Copy()
	a.DesiredStatus = structs.AllocDesiredStatusStop
	if noDelay {
		yes := true
		a.DesiredTransition.NoShutdownDelay = &yes
	}
	h.r.Update(a)
}

// groupDelayArmed reports whether the group's delay is running.
func (h *delayHarness) groupDelayArmed() bool {
	h.r.mu.Lock()
	defer h.r.mu.Unlock()
	return h.r.delayTimer != nil && !h.r.delayOver
}

// waitingOutTaskDelay reports whether a task runner is parked in its
// shutdown_delay, its timer armed.
func waitingOutTaskDelay() bool {
	return testutil.Parked("taskrunner.(*TaskRunner).shutdownDelay(")
}

func eventTypes(ts *structs.TaskState) []string {
	var out []string
	for _, e := range ts.Events {
		out = append(out, e.Type)
	}
	return out
}

func event(ts *structs.TaskState, typ string) *structs.TaskEvent {
	for _, e := range ts.Events {
		if e.Type == typ {
			return e
		}
	}
	return nil
}

func dead(ts *structs.TaskState) bool { return ts.State == structs.TaskStateDead }

// The stop path in Nomad's order: the group's services leave the catalog,
// the group's shutdown_delay passes with every task still running, then
// the tasks are told to die; "web" loses its own service, records
// "Waiting for shutdown delay", and gets its kill signal only once its own
// delay has passed, "side" (no delay of its own) at once.
func TestShutdownDelay_ServicesLeaveThenTheDelaysPassThenTheKill(t *testing.T) {
	const groupDelay, webDelay = 10 * time.Second, 5 * time.Second
	h := runDelayed(t, groupDelay, webDelay)
	stopAt := h.clock.Now()
	h.stop(false)

	h.waitFor("the group's service gone, its delay running", func() (bool, string) {
		return h.registered() == regAdmin && h.groupDelayArmed(), h.describe()
	})
	h.clock.Advance(groupDelay - time.Millisecond)
	if !h.groupDelayArmed() || h.state("web").State != structs.TaskStateRunning || h.state("side").State != structs.TaskStateRunning ||
		event(h.state("side"), taskrunner.EventKilling) != nil || h.registered() != regAdmin {
		t.Fatalf("just before the group's shutdown_delay passed: %s", h.describe())
	}

	h.clock.Advance(time.Millisecond)
	h.waitFor("side killed, web waiting out its own delay", func() (bool, string) {
		return dead(h.state("side")) && event(h.state("web"), taskrunner.EventWaitingShutdownDelay) != nil && waitingOutTaskDelay(), h.describe()
	})
	groupOver := stopAt.Add(groupDelay).UnixNano()
	if k := event(h.state("side"), taskrunner.EventKilling); k == nil || k.Time != groupOver {
		t.Fatalf("side's Killing event %+v, want it at the end of the group's delay (+%v)", k, groupDelay)
	}
	w := event(h.state("web"), taskrunner.EventWaitingShutdownDelay)
	if w.Time != groupOver || w.DisplayMessage != "Waiting for shutdown_delay of 5s before killing the task." {
		t.Fatalf("web's waiting event %+v", w)
	}
	if h.registered() != "" || h.state("web").State != structs.TaskStateRunning || event(h.state("web"), taskrunner.EventKilling) != nil {
		t.Fatalf("web during its own shutdown_delay: %s", h.describe())
	}

	h.clock.Advance(webDelay - time.Millisecond)
	if h.state("web").State != structs.TaskStateRunning || event(h.state("web"), taskrunner.EventKilling) != nil {
		t.Fatalf("web just before its shutdown_delay passed: %s", h.describe())
	}
	h.clock.Advance(time.Millisecond)
	h.waitFor("web killed", func() (bool, string) { return dead(h.state("web")), h.describe() })
	if k := event(h.state("web"), taskrunner.EventKilling); k == nil || k.Time != stopAt.Add(groupDelay+webDelay).UnixNano() {
		t.Fatalf("web's Killing event %+v, want it at +%v", k, groupDelay+webDelay)
	}
	select {
	case <-h.r.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the alloc's runner did not finish: %s", h.describe())
	}
}

// A stop that must not wait does not: a second stop with
// -no-shutdown-delay ends either delay at once, a destroyed alloc and a
// dev agent's shutdown (StopNow) skip them, and a client shutting down
// leaves its tasks running without waiting. The clock never moves.
func TestShutdownDelay_StopsThatMustNotWaitDoNot(t *testing.T) {
	const long = time.Hour
	inGroupDelay := func(h *delayHarness) {
		h.stop(false)
		h.waitFor("the group's delay running", func() (bool, string) { return h.groupDelayArmed(), h.describe() })
	}
	inTaskDelay := func(h *delayHarness) {
		h.stop(false)
		h.waitFor("web waiting out its delay", func() (bool, string) {
			return dead(h.state("side")) && waitingOutTaskDelay(), h.describe()
		})
	}
	// Destroy and Shutdown return once done: a hang fails the test by its
	// deadline, with what the runner was doing.
	returns := func(h *delayHarness, what string, f func()) {
		h.ended = true
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			h.t.Fatalf("%s did not return: %s", what, h.describe())
		}
	}
	destroy := func(h *delayHarness) { returns(h, "Destroy", func() { _ = h.r.Destroy() }) }
	shutdown := func(h *delayHarness) { returns(h, "Shutdown", h.r.Shutdown) }
	cases := []struct {
		name                 string
		groupDelay, webDelay time.Duration
		before               func(*delayHarness)
		interrupt            func(*delayHarness)
		killed               bool   // the tasks die (else they are left running)
		webEvent             string // an event web records, if any
	}{
		{"stopped again without delay, during the group's delay", long, long, inGroupDelay,
			func(h *delayHarness) { h.stop(true) }, true, taskrunner.EventSkippingShutdownDelay},
		{"stopped again without delay, during the task's delay", 0, long, inTaskDelay,
			func(h *delayHarness) { h.stop(true) }, true, taskrunner.EventWaitingShutdownDelay},
		{"stopped without delay at once", long, long, func(*delayHarness) {},
			func(h *delayHarness) { h.stop(true) }, true, taskrunner.EventSkippingShutdownDelay},
		{"destroyed during the group's delay", long, long, inGroupDelay, destroy, true, ""},
		{"destroyed during the task's delay", 0, long, inTaskDelay, destroy, true, ""},
		{"StopNow (a dev agent going away)", long, long, func(*delayHarness) {},
			func(h *delayHarness) { h.r.StopNow() }, true, taskrunner.EventSkippingShutdownDelay},
		{"client shutdown during the group's delay", long, long, inGroupDelay, shutdown, false, ""},
		{"client shutdown during the task's delay", 0, long, inTaskDelay, shutdown, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := runDelayed(t, tc.groupDelay, tc.webDelay)
			start := h.clock.Now()
			tc.before(h)
			tc.interrupt(h)
			if tc.killed {
				h.waitFor("every task dead", func() (bool, string) {
					return dead(h.state("web")) && dead(h.state("side")), h.describe()
				})
				select {
				case <-h.r.Done():
				case <-time.After(10 * time.Second):
					t.Fatalf("the runner did not finish: %s", h.describe())
				}
			} else if st := h.state("web").State; st == structs.TaskStateDead {
				t.Fatalf("a client shutdown killed web: %s", h.describe())
			}
			if tc.webEvent != "" && event(h.state("web"), tc.webEvent) == nil {
				t.Fatalf("web has no %q event: %s", tc.webEvent, h.describe())
			}
			if !h.clock.Now().Equal(start) {
				t.Fatalf("the clock moved")
			}
			if tc.killed && h.registered() != "" {
				t.Fatalf("services left behind: [%s]", h.registered())
			}
			if !slices.Contains([]string{"", regAdmin, regFront + "," + regAdmin}, h.registered()) {
				t.Fatalf("catalog [%s]", h.registered())
			}
		})
	}
}
