package command

import (
	"flag"
	"fmt"
	"sort"

	"github.com/hashicorp/nomad/api"
)

func init() { register("node status", nodeStatusCmd) }

func nodeStatusCmd() *cmd {
	var self bool
	c := &cmd{
		Name: "node status", Args: "[node]", MaxArgs: 1, Read: true,
		Synopsis: "List nodes, or display one node with its allocations",
		Help:     "With a node ID (or unique prefix) shows the node, its resource totals\nand what its allocations use, and its allocations.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&self, "self", false, "Show the node of the agent addressed.")
	}
	c.Run = func(e *env, args []string) error {
		if self {
			if len(args) > 0 {
				return errorf("-self and a node ID are mutually exclusive")
			}
			id, err := e.selfNode()
			if err != nil {
				return err
			}
			return e.nodeStatus(id)
		}
		if len(args) == 0 {
			return e.nodeList()
		}
		return e.nodeStatus(args[0])
	}
	return c
}

func (e *env) nodeList() error {
	cl, err := e.api()
	if err != nil {
		return err
	}
	nodes, _, err := cl.Nodes().List(e.query())
	if err != nil {
		return apiError("listing nodes", err)
	}
	return outputList(e, nodes, "No nodes registered", e.nodeTable)
}

func (e *env) nodeTable(nodes []*api.NodeListStub) {
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	rows := [][]string{{"ID", "Node Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status"}}
	for _, n := range nodes {
		rows = append(rows, []string{e.short(n.ID), n.NodePool, n.Datacenter, n.Name, orNone(n.NodeClass),
			fmt.Sprint(n.Drain), n.SchedulingEligibility, n.Status})
	}
	writeColumns(e.stdout, rows)
}

// nodeStatusView is what -json and -t see for one node.
type nodeStatusView struct {
	Node        *api.Node
	Allocations []*api.Allocation
}

func (e *env) nodeStatus(prefix string) error {
	id, err := e.resolveNode(prefix)
	if err != nil {
		return err
	}
	cl, _ := e.api()
	v := &nodeStatusView{}
	if v.Node, _, err = cl.Nodes().Info(id, e.query()); err != nil {
		return apiError("reading node "+id, err)
	}
	if v.Allocations, _, err = cl.Nodes().Allocations(id, e.query()); err != nil {
		return apiError("listing allocations of node "+id, err)
	}
	return e.output(v, func() error { e.printNode(v); return nil })
}

func (e *env) printNode(v *nodeStatusView) {
	n := v.Node
	writeKV(e.stdout, [][2]string{
		{"ID", e.short(n.ID)}, {"Name", n.Name}, {"Node Pool", n.NodePool}, {"Class", orNone(n.NodeClass)},
		{"DC", n.Datacenter}, {"Drain", fmt.Sprint(n.Drain)}, {"Eligibility", n.SchedulingEligibility},
		{"Status", n.Status}, {"Address", orNone(n.HTTPAddr)}, {"Drivers", joinOr(sortedKeys(n.Drivers), "<none>")},
	})
	heading(e.stdout, "Allocated Resources")
	e.resourceTable(n, v.Allocations)
	heading(e.stdout, "Allocations")
	stubs := make([]*api.AllocationListStub, 0, len(v.Allocations))
	for _, a := range v.Allocations {
		stubs = append(stubs, a.Stub())
	}
	e.allocTable(e.stdout, stubs)
}

// resourceTable shows what the node's live allocations reserve against
// its capacity, per dimension.
func (e *env) resourceTable(n *api.Node, allocs []*api.Allocation) {
	var cpu, mem, disk int64
	for _, a := range allocs {
		if a.ServerTerminalStatus() || a.ClientTerminalStatus() || a.AllocatedResources == nil {
			continue
		}
		for _, t := range a.AllocatedResources.Tasks {
			cpu += t.Cpu.CpuShares
			mem += t.Memory.MemoryMB
		}
		disk += a.AllocatedResources.Shared.DiskMB
	}
	var tc, tm, td int64
	if r := n.NodeResources; r != nil {
		tc, tm, td = r.Cpu.CpuShares, r.Memory.MemoryMB, r.Disk.DiskMB
	}
	writeColumns(e.stdout, [][]string{
		{"CPU", "Memory", "Disk"},
		{fmt.Sprintf("%d/%d MHz", cpu, tc), fmt.Sprintf("%d MiB/%d MiB", mem, tm), fmt.Sprintf("%d MiB/%d MiB", disk, td)},
	})
}
