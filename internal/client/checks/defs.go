// Package checks runs an allocation's service checks on the client, as
// Nomad's own service provider does: http, tcp and grpc (grpc.health.v1)
// checks against the ports the alloc was granted, and script checks run
// inside a task through its driver's exec, each on its interval
// (scheduled on the injected clock) and bounded by its timeout. http checks
// send the check's method, header block and body, and https ones honour
// tls_skip_verify and tls_server_name; success_before_passing,
// failures_before_warning and failures_before_critical hold a status
// change until that many results in a row (thresholds), and a check's
// initial_status is its status until the first result (initialStatus:
// Consul's meaning, which Nomad's own provider lacks). The alloc runner
// reads the results to decide deployment health when update.health_check
// is "checks" (weighed by each check's on_update: ForDeployment), to set
// the health of the service registrations, and to restart tasks whose
// checks keep failing (check_restart).
package checks

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// Check types this client runs. Others are left out rather than reported
// failing, so they never block a deployment.
const (
	TypeHTTP   = "http"
	TypeTCP    = "tcp"
	TypeScript = "script"
	TypeGRPC   = "grpc"
)

func runnable(typ string) bool {
	switch typ {
	case TypeHTTP, TypeTCP, TypeScript, TypeGRPC:
		return true
	}
	return false
}

// Timing defaults and bounds for checks that leave them out or ask for
// less than Nomad allows.
const (
	DefaultInterval = 10 * time.Second
	DefaultTimeout  = 5 * time.Second
	MinInterval     = time.Second
)

// LoopbackIP is dialled when a port was granted without a host IP.
const LoopbackIP = "127.0.0.1"

// Check is one check ready to run, its target resolved from the alloc.
type Check struct {
	// ID is unique within the alloc: scope/service/check name.
	ID       string
	Task     string // "" for a group-level service
	Service  string
	Name     string
	Type     string
	Protocol string
	Method   string
	Path     string
	// Address is host:port; "" when the port label matches nothing
	// granted (the check then fails with that reason).
	Address  string
	PortNote string // why Address is empty
	Interval time.Duration
	Timeout  time.Duration
	// Command and Args: a script check's command line.
	Command string
	Args    []string
	// GRPCService, GRPCUseTLS, TLSSkipVerify: see structs.ServiceCheck.
	GRPCService   string
	GRPCUseTLS    bool
	TLSSkipVerify bool
	// InTask is the task a script check runs in and check_restart
	// restarts: the service's own task, else the check's `task`.
	InTask  string
	Restart *structs.CheckRestart
	// Header and Body go with an http check's request; TLSServerName is
	// the name an https or TLS grpc check verifies.
	Header        map[string][]string
	Body          string
	TLSServerName string
	// SuccessBeforePassing, FailuresBeforeWarning, FailuresBeforeCritical:
	// results in a row needed to move the status (see thresholds).
	SuccessBeforePassing   int
	FailuresBeforeWarning  int
	FailuresBeforeCritical int
	// OnUpdate is what the check means to deployment health (see
	// ForDeployment).
	OnUpdate string
	// Initial is the status the check has before its first result:
	// StatusPending, or the check's initial_status (see initialStatus).
	Initial string
}

// FromAlloc lists the runnable checks of the alloc's group services and
// task services, in job order. Tasks that are expected to end (prestart
// and poststart hooks that are not sidecars, poststop tasks) are skipped:
// their checks would fail forever once they finish.
func FromAlloc(a *structs.Allocation) []Check {
	tg := a.Group()
	if tg == nil {
		return nil
	}
	seen := map[string]int{}
	var out []Check
	for _, s := range tg.Services {
		out = appendService(out, seen, a, "", s)
	}
	for _, t := range tg.Tasks {
		if t == nil || ephemeral(t) {
			continue
		}
		for _, s := range t.Services {
			out = appendService(out, seen, a, t.Name, s)
		}
	}
	return out
}

func ephemeral(t *structs.Task) bool {
	lc := t.Lifecycle
	if lc == nil || lc.Hook == "" {
		return false
	}
	return lc.Hook == structs.TaskLifecycleHookPoststop || !lc.Sidecar
}

func appendService(out []Check, seen map[string]int, a *structs.Allocation, task string, s *structs.Service) []Check {
	if s == nil {
		return out
	}
	for _, sc := range s.Checks {
		if sc == nil || !runnable(sc.Type) {
			continue
		}
		c := build(a, task, s, sc)
		// Unnamed or repeated names still need distinct IDs.
		if n := seen[c.ID]; n > 0 {
			seen[c.ID] = n + 1
			c.ID = fmt.Sprintf("%s#%d", c.ID, n)
		} else {
			seen[c.ID] = 1
		}
		out = append(out, c)
	}
	return out
}

func build(a *structs.Allocation, task string, s *structs.Service, sc *structs.ServiceCheck) Check {
	name := sc.Name
	if name == "" {
		name = fmt.Sprintf("service: %q check", s.Name) // Nomad's default name
	}
	scope := "group"
	if task != "" {
		scope = "task/" + task
	}
	c := Check{
		ID: scope + "/" + s.Name + "/" + name, Task: task, Service: s.Name, Name: name,
		Type: sc.Type, Protocol: sc.Protocol, Method: sc.Method, Path: sc.Path,
		Interval: sc.Interval, Timeout: sc.Timeout, Command: sc.Command, Args: sc.Args,
		GRPCService: sc.GRPCService, GRPCUseTLS: sc.GRPCUseTLS, TLSSkipVerify: sc.TLSSkipVerify,
		InTask: task, Restart: sc.CheckRestart,
		Header: sc.Header, Body: sc.Body, TLSServerName: sc.TLSServerName,
		SuccessBeforePassing: sc.SuccessBeforePassing, FailuresBeforeWarning: sc.FailuresBeforeWarning,
		FailuresBeforeCritical: sc.FailuresBeforeCritical, OnUpdate: sc.OnUpdate,
		Initial: initialStatus(sc.InitialStatus),
	}
	if c.InTask == "" {
		c.InTask = sc.TaskName
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	c.Interval = max(c.Interval, MinInterval)
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Type == TypeScript {
		return c // runs in the task: no address
	}
	label := sc.PortLabel
	if label == "" {
		label = s.PortLabel
	}
	c.Address, c.PortNote = address(a, task, label)
	return c
}

// address resolves a port label to host:port: a granted port of that
// label (the task's own for a task service; the group's, then any task's,
// for a group service), else a literal port number on the loopback.
func address(a *structs.Allocation, task, label string) (addr, note string) {
	if label == "" {
		return "", "service has no port"
	}
	for _, p := range candidatePorts(a, task) {
		if p.Label == label {
			return net.JoinHostPort(hostIP(p.HostIP), strconv.Itoa(p.Value)), ""
		}
	}
	if n, err := strconv.Atoi(label); err == nil && n > 0 && n < 65536 {
		return net.JoinHostPort(LoopbackIP, label), ""
	}
	return "", fmt.Sprintf("port label %q not found in the alloc's ports", label)
}

func candidatePorts(a *structs.Allocation, task string) []drivers.PortMapping {
	if task != "" {
		return taskrunner.Ports(a, task)
	}
	out := taskrunner.Ports(a, "")
	if tg := a.Group(); tg != nil {
		for _, t := range tg.Tasks {
			if t != nil {
				out = append(out, taskrunner.Ports(a, t.Name)...)
			}
		}
	}
	return out
}

// hostIP replaces a missing or wildcard host IP with the loopback: a port
// bound on every interface answers there.
func hostIP(ip string) string {
	if p := net.ParseIP(ip); p == nil || p.IsUnspecified() {
		return LoopbackIP
	}
	return ip
}

// initialStatus maps a check's initial_status to the status it starts
// with. Nomad documents initial_status for the Consul provider only (its
// own provider shows a check pending until the first result); Drover
// differs on purpose and gives its native checks Consul's meaning, so a
// job written for Consul keeps its behaviour: the service registration
// carries that health and deployment health counts it until the first
// result replaces it ("critical" is Drover's failing). Unset stays
// pending, as in Nomad's provider.
func initialStatus(s string) string {
	switch s {
	case structs.CheckStatusPassing:
		return StatusPassing
	case structs.CheckStatusWarning:
		return StatusWarning
	case structs.CheckStatusCritical:
		return StatusFailing
	}
	return StatusPending
}
