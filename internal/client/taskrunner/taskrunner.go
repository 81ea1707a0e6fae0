package taskrunner

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/state"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
)

// Persister stores a task's state and handle (the client's state DB).
type Persister interface {
	PutTaskState(allocID, task string, ts *structs.TaskState) error
	PutTaskHandle(allocID, task string, h *drivers.TaskHandle) error
}

// DriverSource looks drivers up by name; *drivers.Registry is one.
type DriverSource interface {
	Get(name string) (drivers.Driver, error)
}

// Config is what a task runner needs.
type Config struct {
	Alloc    *structs.Allocation // with its Job
	Task     *structs.Task
	AllocDir *allocdir.AllocDir
	Drivers  DriverSource
	Node     func() *structs.Node // the current node, for env and interpolation
	Region   string
	// AllowHostArtifacts lets artifact sources be local paths anywhere on
	// the host. Off (the default), a local source must be inside the
	// alloc dir, so a job cannot copy the client's own files (e.g.
	// /etc/shadow when the client runs as root) into its task dir.
	AllowHostArtifacts bool
	Clock              clock.Clock
	Logger             *slog.Logger
	Store              Persister
	// OnChange is called after every state change, never with a lock held.
	OnChange func()
	// Restore is what an earlier client persisted for this task.
	Restore *state.TaskRecord
	// LogPollInterval is how often logs are copied (0: logmon's default).
	LogPollInterval time.Duration
	// Identities signs the task's workload identities (nil: none).
	Identities IdentitySigner
	// TaskAPI is the agent's HTTP API served to the task on
	// secrets/api.sock (nil: no socket); it authenticates every request.
	TaskAPI http.Handler
	// TemplateData serves nomadVar / nomadService to templates (nil: those
	// functions fail saying so).
	TemplateData TemplateData
	// MaxKillTimeout caps the task's kill_timeout (client
	// max_kill_timeout; 0: no cap).
	MaxKillTimeout time.Duration
	// Network returns the alloc's network namespace once the alloc runner
	// has set it up (nil: the host's network).
	Network func() *drivers.NetworkIsolation
}

// TaskRunner runs one task.
type TaskRunner struct {
	cfg     Config
	allocID string
	name    string
	taskID  string // the driver's ID: alloc ID + "/" + task name
	clock   clock.Clock
	logger  *slog.Logger

	mu        sync.Mutex
	alloc     *structs.Allocation
	task      *structs.Task
	state     *structs.TaskState
	handle    *drivers.TaskHandle
	restarts  *restartTracker
	logs      *taskLogs
	runCalled bool
	setupDone bool

	prestartState prestartState  // artifacts and templates; run goroutine only
	idTokens      identityTokens // the task's signed workload identities
	taskAPIOnce   sync.Once      // the Task API socket is made once per runner
	renewOnce     sync.Once      // identity renewal runs once per runner

	runCtx     context.Context
	cancelRun  context.CancelFunc
	killCh     chan struct{}
	killOnce   sync.Once
	restartCh  chan restartRequest
	shutdownCh chan struct{}
	shutOnce   sync.Once
	// skipDelayCh is closed once the task's shutdown_delay is to be
	// skipped (SkipShutdownDelay).
	skipDelayCh   chan struct{}
	skipDelayOnce sync.Once
	doneCh        chan struct{}
	doneOnce      sync.Once
}

// New builds a task runner; nothing runs until Run.
func New(cfg Config) *TaskRunner {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.OnChange == nil {
		cfg.OnChange = func() {}
	}
	tr := &TaskRunner{
		cfg: cfg, allocID: cfg.Alloc.ID, name: cfg.Task.Name, taskID: cfg.Alloc.ID + "/" + cfg.Task.Name,
		clock: cfg.Clock, logger: cfg.Logger.With("alloc_id", cfg.Alloc.ID, "task", cfg.Task.Name),
		alloc: cfg.Alloc, task: cfg.Task,
		killCh: make(chan struct{}), restartCh: make(chan restartRequest, 1),
		shutdownCh: make(chan struct{}), doneCh: make(chan struct{}), skipDelayCh: make(chan struct{}),
	}
	tr.runCtx, tr.cancelRun = context.WithCancel(context.Background())
	tr.restarts = newRestartTracker(tr.restartPolicy(), jobType(cfg.Alloc), cfg.Task)
	tr.state = &structs.TaskState{State: structs.TaskStatePending}
	if r := cfg.Restore; r != nil && r.State != nil {
		tr.state = r.State.Copy()
		tr.handle = r.Handle
		tr.setupDone = true
	} else {
		tr.state.Events = appendEvent(nil, NewEvent(tr.clock.Now(), EventReceived, "Task received by client"))
	}
	return tr
}

func (tr *TaskRunner) restartPolicy() *structs.RestartPolicy {
	if tr.task.RestartPolicy != nil {
		return tr.task.RestartPolicy
	}
	if tg := tr.alloc.Group(); tg != nil {
		return tg.RestartPolicy
	}
	return nil
}

func jobType(a *structs.Allocation) string {
	if a.Job == nil {
		return ""
	}
	return a.Job.Type
}

// Name is the task's name.
func (tr *TaskRunner) Name() string { return tr.name }

// Task returns the task definition in use.
func (tr *TaskRunner) Task() *structs.Task {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.task
}

// State returns a copy of the task's state.
func (tr *TaskRunner) State() *structs.TaskState {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.state.Copy()
}

// Done is closed once the task is dead for good, or the runner shut down.
func (tr *TaskRunner) Done() <-chan struct{} { return tr.doneCh }

// Started reports whether Run has been called (or the task was killed
// before it ever ran).
func (tr *TaskRunner) Started() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.runCalled
}

func (tr *TaskRunner) killed() bool {
	select {
	case <-tr.killCh:
		return true
	default:
		return false
	}
}

func (tr *TaskRunner) shuttingDown() bool {
	select {
	case <-tr.shutdownCh:
		return true
	default:
		return false
	}
}
