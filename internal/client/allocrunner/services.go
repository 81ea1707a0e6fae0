package allocrunner

import (
	"net"
	"reflect"
	"strconv"

	"github.com/drover-project/drover/internal/client/checks"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// ServiceRegistrations builds the native catalog rows (`provider =
// "nomad"`) an alloc advertises right now: a task's services while that
// task runs, the group's while every long-running task runs (the alloc
// answers) and it is not stopping, and none once its tasks are told to
// die. running names the running tasks not told to die, groupUp whether
// the group's services are up; results are the alloc's latest check
// results, summed up as each row's Health.
func ServiceRegistrations(a *structs.Allocation, node *structs.Node, running map[string]bool, groupUp bool,
	results []checks.Result) []*structs.ServiceRegistration {
	tg := a.Job.LookupTaskGroup(a.TaskGroup)
	if tg == nil {
		return nil
	}
	var out []*structs.ServiceRegistration
	if groupUp {
		for _, s := range tg.Services {
			out = appendRegistration(out, a, node, "", "group-"+tg.Name, s, results)
		}
	}
	for _, t := range tg.Tasks {
		if t == nil || !running[t.Name] {
			continue
		}
		for _, s := range t.Services {
			out = appendRegistration(out, a, node, t.Name, t.Name, s, results)
		}
	}
	return out
}

func appendRegistration(out []*structs.ServiceRegistration, a *structs.Allocation, node *structs.Node, task, scope string,
	s *structs.Service, results []checks.Result) []*structs.ServiceRegistration {
	if s == nil || s.Provider != structs.ServiceProviderNomad {
		return out
	}
	addr, port := serviceAddress(a, node, task, s)
	reg := &structs.ServiceRegistration{
		// Nomad's ID shape, so tools that parse it keep working.
		ID:          "_nomad-task-" + a.ID + "-" + scope + "-" + s.Name + "-" + s.PortLabel,
		ServiceName: s.Name, Namespace: a.Namespace, JobID: a.JobID, AllocID: a.ID,
		Tags: serviceTags(a, s), Address: addr, Port: port, Health: serviceHealth(results, task, s.Name),
	}
	if node != nil {
		reg.NodeID, reg.Datacenter = node.ID, node.Datacenter
	}
	return append(out, reg)
}

// serviceTags are the service's canary_tags while the alloc is an
// unpromoted canary (when it has any), else its tags, as in Nomad.
func serviceTags(a *structs.Allocation, s *structs.Service) []string {
	if a.DeploymentStatus != nil && a.DeploymentStatus.Canary && len(s.CanaryTags) > 0 {
		return s.CanaryTags
	}
	return s.Tags
}

// serviceAddress is where the service answers: the `address` it names,
// else the host IP its port was granted on (the node's address when the
// port was bound on every interface); the port is the granted host port,
// or a literal number used as the label.
func serviceAddress(a *structs.Allocation, node *structs.Node, task string, s *structs.Service) (string, int) {
	addr, port := "", 0
	if s.PortLabel != "" {
		ports := taskrunner.Ports(a, task)
		if task == "" {
			ports = groupPorts(a)
		}
		for _, p := range ports {
			if p.Label == s.PortLabel {
				addr, port = p.HostIP, p.Value
				break
			}
		}
		if port == 0 {
			if n, err := strconv.Atoi(s.PortLabel); err == nil {
				port = n
			}
		}
	}
	if ip := net.ParseIP(addr); ip == nil || ip.IsUnspecified() {
		addr = nodeAddress(node)
	}
	if s.Address != "" {
		addr = s.Address
	}
	return addr, port
}

// serviceHealth sums up the results of a service's checks in its scope
// (task, "" for the group): critical when one fails, warning when one
// warns, passing when all pass; "" while none has run or it has none.
func serviceHealth(results []checks.Result, task, service string) string {
	health := ""
	for _, res := range results {
		if res.Check.Task == task && res.Check.Service == service && res.Status != checks.StatusPending {
			health = worseHealth(health, res.Status)
		}
	}
	return health
}

var healthRank = map[string]int{"": 0, structs.ServiceHealthPassing: 1, structs.ServiceHealthWarning: 2, structs.ServiceHealthCritical: 3}

func worseHealth(cur, status string) string {
	next := structs.ServiceHealthCritical
	switch status {
	case checks.StatusPassing:
		next = structs.ServiceHealthPassing
	case checks.StatusWarning:
		next = structs.ServiceHealthWarning
	}
	if healthRank[next] > healthRank[cur] {
		return next
	}
	return cur
}

// groupPorts are the ports a group service may name: the group's, then
// any task's.
func groupPorts(a *structs.Allocation) []drivers.PortMapping {
	out := taskrunner.Ports(a, "")
	if tg := a.Job.LookupTaskGroup(a.TaskGroup); tg != nil {
		for _, t := range tg.Tasks {
			if t != nil {
				out = append(out, taskrunner.Ports(a, t.Name)...)
			}
		}
	}
	return out
}

func nodeAddress(node *structs.Node) string {
	if node != nil {
		if ip := node.Attributes["unique.network.ip-address"]; ip != "" {
			return ip
		}
	}
	return checks.LoopbackIP
}

// syncServices hands the catalog what the alloc advertises now, when that
// changed since the last hand-over. A stopping alloc's group services go
// as soon as the stop begins, before the group's shutdown_delay; a task's
// go once the task is told to die, before its own delay and its kill
// signal (Nomad's group and task service hooks deregister in the same
// order).
func (r *Runner) syncServices(vs []view) {
	if r.cfg.Services == nil {
		return
	}
	r.mu.Lock()
	a, stopping := r.alloc, r.stopping || r.alloc.ServerTerminalStatus()
	running := map[string]bool{}
	for _, v := range vs {
		if v.running() && !r.killSent[v.task.Name] {
			running[v.task.Name] = true
		}
	}
	r.mu.Unlock()
	var regs []*structs.ServiceRegistration
	if r.malformed == "" {
		allRunning, _, _ := healthInputs(vs)
		regs = ServiceRegistrations(a, r.cfg.Node(), running, allRunning && !stopping, r.CheckResults())
	}
	r.mu.Lock()
	same := r.servicesSynced && reflect.DeepEqual(regs, r.lastServices)
	r.lastServices, r.servicesSynced = regs, true
	r.mu.Unlock()
	if !same {
		r.cfg.Services(r.id, regs)
	}
}
