package scheduler

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// Diagnosis steps: where in the scheduler's chain a node failed, in the
// order the chain checks them (newPlacementStack's candidate filter, then
// feasibility, then fit). A node's first failure is the one the scheduler
// reports; the rest say what else would have to change on that node.
const (
	StepStatus           = "status"
	StepDatacenter       = "datacenter"
	StepPool             = "pool"
	StepDriver           = "driver"
	StepConstraint       = "constraint"
	StepHostVolume       = "host-volume"
	StepHostNetwork      = "host-network"
	StepDevice           = "device"
	StepDistinctHosts    = "distinct_hosts"
	StepDistinctProperty = "distinct_property"
	StepResources        = "resources"
	StepPorts            = "ports"
)

// Failure is one reason a node cannot take one more alloc of a group, with
// the numbers behind it.
type Failure struct {
	Step string
	// Key groups the same failure across nodes: the step plus what failed
	// ("constraint ${attr.kernel.name} = windows", "memory", "port 80").
	Key string
	// Detail is the failure with this node's numbers.
	Detail string

	Constraint *structs.Constraint // StepConstraint, StepDistinctProperty
	NodeValue  string              // the node's value of the constraint's LTarget
	ValueSet   bool
	Driver     string // StepDriver
	Dimension  string // StepResources: cpu, cores, memory, disk
	Asked      int64  // StepResources: the group's ask in the dimension
	Free       int64  // StepResources: what the node has left in it
	// Preemptible is, for StepResources, what evicting every alloc of a
	// job at least PreemptionPriorityDelta lower in priority would free on
	// top of Free.
	Preemptible int64
	Port        int                 // StepPorts: the colliding reserved port
	Holder      *structs.Allocation // StepPorts, StepDistinctHosts: who holds it (nil: the node reserves it)
}

// NodeDiagnosis is every failure of one node, in chain order; none means
// the node takes one more alloc of the group now.
type NodeDiagnosis struct {
	Node     *structs.Node
	Failures []*Failure
	// Free is what the node has left (capacity less its proposed allocs).
	Free structs.ComparableResources
	// DynamicFree is how many ports of the node's dynamic range are free
	// (counted only when the group asks dynamic ports).
	DynamicFree int
}

// Fits reports whether the node takes one more alloc now.
func (d *NodeDiagnosis) Fits() bool { return len(d.Failures) == 0 }

// GroupDiagnosis is the scheduler's checks of one task group against
// every node of the snapshot.
type GroupDiagnosis struct {
	Job   *structs.Job
	Group *structs.TaskGroup
	// Ask is what one alloc of the group asks for (CPU of reserved cores
	// not included; Cores counts them).
	Ask   structs.ComparableResources
	Nodes []*NodeDiagnosis // sorted by node name, then ID
	// PreemptionEnabled is the cluster's preemption switch for the job's
	// type; PreemptionDelta the priority gap a victim needs.
	PreemptionEnabled bool
	PreemptionDelta   int
}

// DiagnoseGroup runs the scheduler's own checks (candidate filter,
// feasibility chain, resource fit, ports) for one more alloc of the
// group on every node of the snapshot, recording every failure with its
// numbers instead of stopping at the first. Nothing is written; the
// group's current allocs count as placed (distinct_hosts, ports).
func DiagnoseGroup(st State, job *structs.Job, group string) (*GroupDiagnosis, error) {
	tg := job.LookupTaskGroup(group)
	if tg == nil {
		return nil, fmt.Errorf("job %q has no task group %q", job.ID, group)
	}
	eval := &structs.Evaluation{ID: "diagnose", Namespace: job.Namespace, JobID: job.ID, Priority: job.Priority}
	in, err := readJobState(st, eval)
	if err != nil {
		return nil, err
	}
	plan := &structs.Plan{EvalID: eval.ID, Job: job, NodeUpdate: map[string][]*structs.Allocation{}, NodeAllocation: map[string][]*structs.Allocation{}}
	ctx := newEvalContext(st, eval, job, plan, in.cfg, timeZero)
	ctx.nodes, ctx.jobAllocs = in.nodeMap, in.allocs
	if in.job == nil || in.job.CreateIndex != job.CreateIndex {
		ctx.jobAllocs = nil
	}
	d := &GroupDiagnosis{Job: job, Group: tg, PreemptionEnabled: preemptionEnabled(ctx.cfg, job.Type), PreemptionDelta: PreemptionPriorityDelta}
	ask, cores := groupAsk(tg)
	d.Ask = ask
	var cached, escaped []*structs.Constraint
	for _, c := range groupConstraints(job, tg) {
		if c.Operand != structs.ConstraintDistinctHosts && c.Operand != structs.ConstraintDistinctProperty {
			if escapesClass(c.LTarget) || escapesClass(c.RTarget) {
				escaped = append(escaped, c)
			} else {
				cached = append(cached, c)
			}
		}
	}
	cons := append(cached, escaped...)
	drivers := groupDrivers(tg)
	pre := &preemptor{ctx: ctx, priority: job.Priority, job: structs.NamespacedID{Namespace: job.Namespace, ID: job.ID}, jobPrio: map[structs.NamespacedID]int{}}
	distinct := distinctChecks(ctx, job, tg)
	for _, n := range in.nodes {
		nd := &NodeDiagnosis{Node: n}
		add := func(f *Failure) { nd.Failures = append(nd.Failures, f) }
		if ok, reason := readyFilter().filter(n); !ok {
			add(&Failure{Step: StepStatus, Key: reason, Detail: fmt.Sprintf("%s (status %s, eligibility %s)", reason, n.Status, n.SchedulingEligibility)})
		}
		if !inDatacenters(job.Datacenters, n.Datacenter) {
			add(&Failure{Step: StepDatacenter, Key: "datacenter", Detail: fmt.Sprintf("datacenter %s is not in the job's %v", n.Datacenter, job.Datacenters)})
		}
		if !inPool(job, n) {
			add(&Failure{Step: StepPool, Key: "node pool", Detail: fmt.Sprintf("node pool %s is not the job's %s", cmp.Or(n.NodePool, structs.DefaultNodePool), cmp.Or(job.NodePool, structs.DefaultNodePool))})
		}
		for _, drv := range drivers {
			if !hasDriver(n, drv) {
				add(&Failure{Step: StepDriver, Key: "driver " + drv, Driver: drv, Detail: "missing driver " + drv})
			}
		}
		for _, c := range cons {
			if !ctx.checkConstraint(c, n) {
				v, set := resolveTarget(c.LTarget, n)
				shown := strconv.Quote(v)
				if !set {
					shown = "unset"
				}
				add(&Failure{Step: StepConstraint, Key: "constraint " + constraintString(c), Constraint: c, NodeValue: v, ValueSet: set,
					Detail: fmt.Sprintf("constraint %s: the node's %s is %s", constraintString(c), c.LTarget, shown)})
			}
		}
		if len(hostVolumeClaims(tg)) > 0 {
			if ok, reason := hostVolumeFilter(tg).filter(n); !ok {
				add(&Failure{Step: StepHostVolume, Key: reason, Detail: reason})
			}
		}
		if names := hostNetworkNames(tg); len(names) > 0 {
			if ok, reason := hostNetworkFilter(names).filter(n); !ok {
				add(&Failure{Step: StepHostNetwork, Key: reason, Detail: reason})
			}
		}
		u, err := ctx.nodeUsage(n)
		if err != nil {
			return nil, err
		}
		if asks := deviceAsks(tg); len(asks) > 0 {
			if ok, reason := deviceFilter(ctx, asks).filter(n); !ok {
				add(&Failure{Step: StepDevice, Key: reason, Detail: reason})
			} else if _, reason := ctx.assignDevices(u, asks); reason != "" {
				key, _, _ := strings.Cut(reason, ":") // "device NAME", the same on every node
				add(&Failure{Step: StepDevice, Key: key, Detail: reason})
			}
		}
		nd.Free = u.capacity
		nd.Free.Subtract(&u.used)
		for _, check := range distinct {
			if f := check(n, u); f != nil {
				add(f)
			}
		}
		need := ask
		need.Cores = cores
		need.CpuShares += int64(cores) * mhzPerCore(n)
		var evictable structs.ComparableResources
		for _, v := range pre.candidates(u) {
			evictable.Add(&v.frees)
		}
		for _, dim := range []string{"cpu", "cores", "memory", "disk"} {
			asked, free, more := dimension(&need, &nd.Free, &evictable, dim)
			if asked > free {
				add(&Failure{Step: StepResources, Key: dim, Dimension: dim, Asked: asked, Free: free, Preemptible: more,
					Detail: fmt.Sprintf("%s: asked %s, free %s", dim, Amount(dim, asked), Amount(dim, free))})
			}
		}
		if needsPorts(tg) {
			nd.DynamicFree = dynamicFree(u, tg)
			for _, f := range portCollisions(u, tg) {
				add(f)
			}
		}
		d.Nodes = append(d.Nodes, nd)
	}
	slices.SortStableFunc(d.Nodes, func(a, b *NodeDiagnosis) int {
		return cmp.Or(cmp.Compare(a.Node.Name, b.Node.Name), cmp.Compare(a.Node.ID, b.Node.ID))
	})
	return d, nil
}

var timeZero time.Time

// groupDrivers are the group's task drivers, sorted.
func groupDrivers(tg *structs.TaskGroup) []string {
	var out []string
	for _, t := range tg.Tasks {
		if t.Driver != "" && !slices.Contains(out, t.Driver) {
			out = append(out, t.Driver)
		}
	}
	slices.Sort(out)
	return out
}

// dimension returns the ask, the free amount and the preemptible extra of
// one resource dimension.
func dimension(need, free, evictable *structs.ComparableResources, dim string) (int64, int64, int64) {
	switch dim {
	case "cpu":
		return need.CpuShares, free.CpuShares, evictable.CpuShares
	case "cores":
		return int64(need.Cores), int64(free.Cores), int64(evictable.Cores)
	case "memory":
		return need.MemoryMB, free.MemoryMB, evictable.MemoryMB
	}
	return need.DiskMB, free.DiskMB, evictable.DiskMB
}

// Amount formats a quantity of a dimension with its unit and thousands
// separators: "14,463 MB", "2,000 MHz", "2 cores".
func Amount(dim string, v int64) string {
	unit := map[string]string{"cpu": "MHz", "memory": "MB", "disk": "MB", "cores": "cores"}[dim]
	return Thousands(v) + " " + unit
}

// Thousands formats v with comma separators.
func Thousands(v int64) string {
	s := strconv.FormatInt(v, 10)
	neg := v < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// distinctChecks are the group's distinct_hosts and distinct_property
// checks, naming the alloc (or the count) that blocks the node.
func distinctChecks(ctx *evalContext, job *structs.Job, tg *structs.TaskGroup) []func(*structs.Node, *nodeUsage) *Failure {
	var out []func(*structs.Node, *nodeUsage) *Failure
	add := func(cons []*structs.Constraint, scope string) {
		for _, c := range cons {
			switch c.Operand {
			case structs.ConstraintDistinctHosts:
				if c.RTarget != "" && !parseBoolDefault(c.RTarget, true) {
					continue
				}
				out = append(out, func(n *structs.Node, u *nodeUsage) *Failure {
					for _, a := range u.allocs {
						if a.JobID == job.ID && (scope == "" || a.TaskGroup == scope) {
							return &Failure{Step: StepDistinctHosts, Key: "distinct_hosts", Holder: a,
								Detail: fmt.Sprintf("distinct_hosts: the node already holds alloc %s (%s)", shortID(a.ID), a.Name)}
						}
					}
					return nil
				})
			case structs.ConstraintDistinctProperty:
				c := c
				limit := 1
				if v, err := strconv.Atoi(c.RTarget); err == nil && v > 0 {
					limit = v
				}
				out = append(out, func(n *structs.Node, u *nodeUsage) *Failure {
					val, ok := resolveTarget(c.LTarget, n)
					if !ok {
						return &Failure{Step: StepDistinctProperty, Key: "distinct_property " + c.LTarget, Constraint: c,
							Detail: fmt.Sprintf("distinct_property %s: the node does not set it", c.LTarget)}
					}
					if have := ctx.propertyCount(c.LTarget, job.ID, scope, val); have >= limit {
						f := &Failure{Step: StepDistinctProperty, Key: "distinct_property " + c.LTarget, Constraint: c, NodeValue: val, ValueSet: true,
							Detail: fmt.Sprintf("distinct_property %s: value %q already has %d of %d allowed allocs", c.LTarget, val, have, limit)}
						for _, a := range ctx.proposedJobAllocs(job.ID) {
							if hn := ctx.nodes[a.NodeID]; hn != nil && (scope == "" || a.TaskGroup == scope) {
								if v, ok := resolveTarget(c.LTarget, hn); ok && v == val {
									f.Holder = a
									f.Detail += fmt.Sprintf(", e.g. alloc %s (%s) on node %s", shortID(a.ID), a.Name, hn.Name)
									break
								}
							}
						}
						return f
					}
					return nil
				})
			}
		}
	}
	add(job.Constraints, "")
	add(tg.Constraints, tg.Name)
	for _, t := range tg.Tasks {
		add(t.Constraints, tg.Name)
	}
	return out
}

// portCollisions names each reserved port of the group the node cannot
// grant, with the alloc holding it (nil: the node reserves it), and a full
// dynamic range.
func portCollisions(u *nodeUsage, tg *structs.TaskGroup) []*Failure {
	var out []*Failure
	var nets []*structs.NetworkResource
	nets = append(nets, tg.Networks...)
	dynamic := 0
	for _, t := range tg.Tasks {
		if t.Resources != nil {
			nets = append(nets, t.Resources.Networks...)
		}
	}
	for _, nr := range nets {
		dynamic += len(nr.DynamicPorts)
		for _, p := range nr.ReservedPorts {
			addrs := hostNetworkAddrs(u.node, p.HostNetwork)
			free := len(addrs) == 0 // a missing host network is its own failure
			for _, ip := range addrs {
				free = free || !u.portUsed(ip, p.Value)
			}
			if free {
				continue
			}
			var holder *structs.Allocation
			for _, a := range u.allocs {
				forEachAddrPort(a, u.ip, func(ip string, q int) {
					if q == p.Value && holder == nil && slices.Contains(addrs, ip) {
						holder = a
					}
				})
			}
			f := &Failure{Step: StepPorts, Key: "port " + strconv.Itoa(p.Value), Port: p.Value, Holder: holder}
			if holder != nil {
				f.Detail = fmt.Sprintf("port %d (%s) is held by alloc %s (%s)", p.Value, p.Label, shortID(holder.ID), holder.Name)
			} else {
				f.Detail = fmt.Sprintf("port %d (%s) is reserved by the node", p.Value, p.Label)
			}
			out = append(out, f)
		}
	}
	if dynamic > 0 {
		lo, hi := dynamicRange(u.node)
		free := 0
		for p := lo; p <= hi && free < dynamic; p++ {
			if u.ports[p] == 0 {
				free++
			}
		}
		if free < dynamic {
			out = append(out, &Failure{Step: StepPorts, Key: "dynamic ports", Detail: fmt.Sprintf("dynamic ports: asked %d, free %d in %d-%d", dynamic, free, lo, hi)})
		}
	}
	return out
}

// dynamicFree counts the free ports of the node's dynamic range when the
// group asks dynamic ports (0 otherwise).
func dynamicFree(u *nodeUsage, tg *structs.TaskGroup) int {
	asks := false
	for _, nr := range tg.Networks {
		asks = asks || len(nr.DynamicPorts) > 0
	}
	for _, t := range tg.Tasks {
		if t.Resources != nil {
			for _, nr := range t.Resources.Networks {
				asks = asks || len(nr.DynamicPorts) > 0
			}
		}
	}
	if !asks {
		return 0
	}
	lo, hi := dynamicRange(u.node)
	free := 0
	for p := lo; p <= hi; p++ {
		if u.ports[p] == 0 {
			free++
		}
	}
	return free
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
