package allocrunner

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/checks"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/state"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Persister is the part of the client's state DB an alloc runner writes.
type Persister interface {
	taskrunner.Persister
	PutAlloc(alloc *structs.Allocation) error
	PutDeploymentStatus(allocID string, ds *structs.AllocDeploymentStatus) error
	DeleteAlloc(allocID string) error
}

// Config is what an alloc runner needs.
type Config struct {
	Alloc        *structs.Allocation
	AllocDirRoot string
	Drivers      taskrunner.DriverSource
	Node         func() *structs.Node
	Region       string
	// AllowHostArtifacts: see taskrunner.Config.
	AllowHostArtifacts bool
	Clock              clock.Clock
	Logger             *slog.Logger
	Store              Persister
	// OnUpdate receives the alloc's client-side fields whenever they
	// change; it must not block for long (the client batches).
	OnUpdate func(*structs.Allocation)
	// Restore is what an earlier client persisted for this alloc.
	Restore         *state.AllocRecord
	LogPollInterval time.Duration
	// Services receives the alloc's native service registrations whenever
	// they change (none once it stops); nil: no catalog. It must not block.
	Services func(allocID string, regs []*structs.ServiceRegistration)
	// Identities signs workload identities of an alloc's tasks (nil: none).
	Identities func(ctx context.Context, allocID string, reqs []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error)
	// TemplateData serves the templates' Nomad functions (nil: none).
	TemplateData taskrunner.TemplateData
	// TaskAPI is served on each task's secrets/api.sock (nil: none).
	TaskAPI http.Handler
	// MaxKillTimeout caps every task's kill_timeout (0: no cap).
	MaxKillTimeout time.Duration
	// Network sets up the alloc's network namespace (nil: every alloc
	// runs on the host's network).
	Network Networks
	// Previous is the alloc this one replaces on the same node when its
	// group's ephemeral_disk is sticky (nil: none; see sticky.go).
	Previous *PreviousAlloc
}

// Runner runs one allocation.
type Runner struct {
	cfg      Config
	id       string
	clock    clock.Clock
	logger   *slog.Logger
	allocDir *allocdir.AllocDir

	mu         sync.Mutex
	alloc      *structs.Allocation
	tasks      map[string]*taskrunner.TaskRunner
	order      []string // task names in the group's order
	stopping   bool
	stopReason map[string]*structs.TaskEvent // event recorded on each task killed
	// killSent names the tasks told to die; their services are gone.
	killSent map[string]bool
	// The group's shutdown_delay (shutdown_delay.go): delayTimer ends it,
	// delayOver once it has passed or was skipped, skipDelay when every
	// delay of the alloc is to be skipped.
	delayTimer clock.Timer
	delayOver  bool
	skipDelay  bool
	// maxRunTimer fires at the group's max_run_duration (max_run.go);
	// maxRunExceeded once it has.
	maxRunTimer    clock.Timer
	maxRunExceeded bool
	health         *healthTracker
	checker        *checks.Checker // nil: no service checks to run
	lastReport     *structs.Allocation
	// lastServices is what syncServices last handed to cfg.Services.
	lastServices   []*structs.ServiceRegistration
	servicesSynced bool
	malformed      string
	// network and networkStatus are the alloc's namespace, once set up.
	network       *drivers.NetworkIsolation
	networkStatus *structs.AllocNetworkStatus

	changeCh   chan struct{}
	shutdownCh chan struct{}
	shutOnce   sync.Once
	runOnce    sync.Once
	loopDone   chan struct{}
	doneCh     chan struct{} // closed once every task is dead
	doneOnce   sync.Once
}

// New builds the runner and its task runners; Run starts them.
func New(cfg Config) *Runner {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.OnUpdate == nil {
		cfg.OnUpdate = func(*structs.Allocation) {}
	}
	r := &Runner{
		cfg: cfg, id: cfg.Alloc.ID, clock: cfg.Clock, logger: cfg.Logger.With("alloc_id", cfg.Alloc.ID),
		allocDir: allocdir.New(cfg.AllocDirRoot, cfg.Alloc.ID), alloc: cfg.Alloc,
		tasks: map[string]*taskrunner.TaskRunner{}, stopReason: map[string]*structs.TaskEvent{}, killSent: map[string]bool{},
		changeCh: make(chan struct{}, 1), shutdownCh: make(chan struct{}),
		loopDone: make(chan struct{}), doneCh: make(chan struct{}),
	}
	r.malformed = validate(cfg.Alloc)
	if r.malformed == "" {
		r.buildTasks()
		r.checker = r.newChecker(cfg.Alloc)
	}
	var restored *structs.AllocDeploymentStatus
	if cfg.Restore != nil {
		restored = cfg.Restore.Deployment
	}
	r.health = newHealthTracker(cfg.Alloc, restored, r.checker != nil)
	return r
}

// validate names what makes an alloc impossible to run, or "".
func validate(a *structs.Allocation) string {
	if a.Job == nil {
		return "alloc has no job"
	}
	tg := a.Group()
	if tg == nil {
		return "task group " + a.TaskGroup + " not found in job"
	}
	if len(tg.Tasks) == 0 {
		return "task group " + a.TaskGroup + " has no tasks"
	}
	for _, t := range tg.Tasks {
		if t == nil || t.Name == "" {
			return "task group " + a.TaskGroup + " has a task without a name"
		}
	}
	return ""
}

func (r *Runner) buildTasks() {
	for _, t := range r.alloc.Group().Tasks {
		var rec *state.TaskRecord
		if r.cfg.Restore != nil {
			rec = r.cfg.Restore.Tasks[t.Name]
		}
		r.order = append(r.order, t.Name)
		r.tasks[t.Name] = taskrunner.New(taskrunner.Config{
			Alloc: r.alloc, Task: t, AllocDir: r.allocDir, Drivers: r.cfg.Drivers, Node: r.cfg.Node,
			Region: r.cfg.Region, Clock: r.clock, Logger: r.cfg.Logger, Store: r.cfg.Store,
			OnChange: r.notify, Restore: rec, LogPollInterval: r.cfg.LogPollInterval,
			AllowHostArtifacts: r.cfg.AllowHostArtifacts, Identities: r.taskIdentities(), TemplateData: r.cfg.TemplateData, TaskAPI: r.cfg.TaskAPI,
			MaxKillTimeout: r.cfg.MaxKillTimeout,
			Network:        r.networkIsolation,
		})
	}
}

// notify wakes the runner's loop; it never blocks.
func (r *Runner) notify() {
	select {
	case r.changeCh <- struct{}{}:
	default:
	}
}

// ID is the alloc's ID.
func (r *Runner) ID() string { return r.id }

// Alloc returns the alloc as last received from the server.
func (r *Runner) Alloc() *structs.Allocation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.alloc
}

// AllocDir is the alloc's directory tree.
func (r *Runner) AllocDir() *allocdir.AllocDir { return r.allocDir }

// Task returns the named task's runner, or nil.
func (r *Runner) Task(name string) *taskrunner.TaskRunner {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tasks[name]
}

// Tasks returns the task runners in the group's order.
func (r *Runner) Tasks() []*taskrunner.TaskRunner {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*taskrunner.TaskRunner, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tasks[n])
	}
	return out
}

// Done is closed once every task of the alloc is dead.
func (r *Runner) Done() <-chan struct{} { return r.doneCh }

// TaskStats samples every running task.
func (r *Runner) TaskStats() map[string]*drivers.TaskStats { return r.taskStats() }

// taskIdentities binds the identity signer to this alloc.
func (r *Runner) taskIdentities() taskrunner.IdentitySigner {
	if r.cfg.Identities == nil {
		return nil
	}
	return func(ctx context.Context, reqs []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error) {
		return r.cfg.Identities(ctx, r.id, reqs)
	}
}
