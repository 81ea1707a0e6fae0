package structs

// ComparableResources is a flat view of resources for fit arithmetic.
type ComparableResources struct {
	CpuShares int64
	Cores     int
	MemoryMB  int64
	DiskMB    int64
}

// Add adds o to c.
func (c *ComparableResources) Add(o *ComparableResources) {
	if o == nil {
		return
	}
	c.CpuShares += o.CpuShares
	c.Cores += o.Cores
	c.MemoryMB += o.MemoryMB
	c.DiskMB += o.DiskMB
}

// Subtract subtracts o from c.
func (c *ComparableResources) Subtract(o *ComparableResources) {
	if o == nil {
		return
	}
	c.CpuShares -= o.CpuShares
	c.Cores -= o.Cores
	c.MemoryMB -= o.MemoryMB
	c.DiskMB -= o.DiskMB
}

// Superset reports whether c covers o on every dimension; when it does not,
// it names the first exhausted dimension ("cpu", "cores", "memory", "disk").
func (c *ComparableResources) Superset(o *ComparableResources) (bool, string) {
	switch {
	case c.CpuShares < o.CpuShares:
		return false, "cpu"
	case c.Cores < o.Cores:
		return false, "cores"
	case c.MemoryMB < o.MemoryMB:
		return false, "memory"
	case c.DiskMB < o.DiskMB:
		return false, "disk"
	}
	return true, ""
}

// Comparable returns what the node offers, less what it reserves.
func (n *Node) Comparable() *ComparableResources {
	c := &ComparableResources{}
	if n.NodeResources != nil {
		c.CpuShares = n.NodeResources.CPU.CpuShares
		c.Cores = int(n.NodeResources.CPU.TotalCpuCores)
		c.MemoryMB = n.NodeResources.MemoryMB
		c.DiskMB = n.NodeResources.DiskMB
	}
	if r := n.ReservedResources; r != nil {
		c.Subtract(&ComparableResources{CpuShares: r.CpuShares, MemoryMB: r.MemoryMB, DiskMB: r.DiskMB})
	}
	return c
}

// AllocsFit reports whether the non-terminal allocs fit on the node, with
// the exhausted dimension and the total they use.
func AllocsFit(node *Node, allocs []*Allocation) (bool, string, *ComparableResources) {
	used := &ComparableResources{}
	for _, a := range allocs {
		if a.TerminalStatus() {
			continue
		}
		used.Add(a.AllocatedResources.Comparable())
	}
	ok, dim := node.Comparable().Superset(used)
	return ok, dim, used
}
