package insight

import (
	"cmp"
	"slices"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/scheduler"
	"github.com/drover-project/drover/internal/structs"
)

// overlay is a state snapshot with hypothetical changes on top: nodes
// replaced (drained, down, removed), jobs replaced (a count raised), and
// allocs written by the plans the hypothetical schedulers "commit". The
// base is never modified; the scheduler reads the overlay through its
// State interface exactly as it reads the store.
type overlay struct {
	scheduler.State
	index uint64

	nodes    map[string]*structs.Node // replaced nodes by ID (nil value: removed)
	nodeList []*structs.Node          // rebuilt on change; nil: the base's
	nodeMap  map[string]*structs.Node
	jobs     map[structs.NamespacedID]*structs.Job

	allocs      map[string]*structs.Allocation // replaced or new, by ID
	added       []string                       // new alloc IDs, in write order
	addedByNode map[string][]string
	addedByJob  map[structs.NamespacedID][]string
	touched     map[string]bool // nodes with an alloc in the overlay
}

func newOverlay(base scheduler.State) *overlay {
	return &overlay{State: base, index: base.LatestIndex(), nodes: map[string]*structs.Node{},
		jobs: map[structs.NamespacedID]*structs.Job{}, allocs: map[string]*structs.Allocation{},
		addedByNode: map[string][]string{}, addedByJob: map[structs.NamespacedID][]string{}, touched: map[string]bool{}}
}

func (o *overlay) LatestIndex() uint64 { return o.index }

// next returns a new raft-like index for a hypothetical write.
func (o *overlay) next() uint64 { o.index++; return o.index }

// setNode replaces a node (nil removes it).
func (o *overlay) setNode(id string, n *structs.Node) {
	o.nodes[id] = n
	o.nodeList, o.nodeMap = nil, nil
}

func (o *overlay) setJob(j *structs.Job) {
	o.jobs[structs.NamespacedID{Namespace: j.Namespace, ID: j.ID}] = j
}

func (o *overlay) JobByID(ws memdb.WatchSet, namespace, id string) (*structs.Job, error) {
	if j, ok := o.jobs[structs.NamespacedID{Namespace: namespace, ID: id}]; ok {
		return j, nil
	}
	return o.State.JobByID(ws, namespace, id)
}

func (o *overlay) NodeSet(ws memdb.WatchSet) ([]*structs.Node, map[string]*structs.Node, error) {
	if len(o.nodes) == 0 {
		return o.State.NodeSet(ws)
	}
	if o.nodeList == nil {
		base, _, err := o.State.NodeSet(ws)
		if err != nil {
			return nil, nil, err
		}
		o.nodeList = make([]*structs.Node, 0, len(base))
		o.nodeMap = make(map[string]*structs.Node, len(base))
		for _, n := range base {
			if r, ok := o.nodes[n.ID]; ok {
				n = r
			}
			if n != nil {
				o.nodeList = append(o.nodeList, n)
				o.nodeMap[n.ID] = n
			}
		}
	}
	return o.nodeList, o.nodeMap, nil
}

func (o *overlay) Nodes(ws memdb.WatchSet) ([]*structs.Node, error) {
	list, _, err := o.NodeSet(ws)
	return slices.Clone(list), err
}

func (o *overlay) NodeByID(ws memdb.WatchSet, id string) (*structs.Node, error) {
	if n, ok := o.nodes[id]; ok {
		return n, nil
	}
	return o.State.NodeByID(ws, id)
}

// put writes an alloc (new or a new version of a stored one).
func (o *overlay) put(a *structs.Allocation) {
	if _, ok := o.allocs[a.ID]; !ok {
		if stored, _ := o.State.AllocByID(nil, a.ID); stored == nil {
			o.added = append(o.added, a.ID)
			o.addedByNode[a.NodeID] = append(o.addedByNode[a.NodeID], a.ID)
			k := structs.NamespacedID{Namespace: a.Namespace, ID: a.JobID}
			o.addedByJob[k] = append(o.addedByJob[k], a.ID)
		}
	}
	o.allocs[a.ID] = a
	o.touched[a.NodeID] = true
}

func (o *overlay) AllocByID(ws memdb.WatchSet, id string) (*structs.Allocation, error) {
	if a, ok := o.allocs[id]; ok {
		return a, nil
	}
	return o.State.AllocByID(ws, id)
}

// merge replaces the base's allocs by their overlay versions and adds the
// new ones keep selects.
func (o *overlay) merge(base []*structs.Allocation, added []string, keep func(*structs.Allocation) bool) []*structs.Allocation {
	if len(o.allocs) == 0 {
		return base
	}
	out := make([]*structs.Allocation, 0, len(base))
	for _, a := range base {
		if r, ok := o.allocs[a.ID]; ok {
			a = r
		}
		if keep(a) {
			out = append(out, a)
		}
	}
	for _, id := range added {
		if a := o.allocs[id]; keep(a) {
			out = append(out, a)
		}
	}
	return out
}

func (o *overlay) AllocsByJob(ws memdb.WatchSet, namespace, jobID string, anyCreateIndex bool) ([]*structs.Allocation, error) {
	base, err := o.State.AllocsByJob(ws, namespace, jobID, anyCreateIndex)
	if err != nil {
		return nil, err
	}
	var createIndex uint64
	if !anyCreateIndex {
		if j, _ := o.JobByID(ws, namespace, jobID); j != nil {
			createIndex = j.CreateIndex
		}
	}
	return o.merge(base, o.addedByJob[structs.NamespacedID{Namespace: namespace, ID: jobID}], func(a *structs.Allocation) bool {
		return a.Namespace == namespace && a.JobID == jobID && (createIndex == 0 || a.Job == nil || a.Job.CreateIndex == createIndex)
	}), nil
}

func (o *overlay) AllocsByNode(ws memdb.WatchSet, nodeID string) ([]*structs.Allocation, error) {
	base, err := o.State.AllocsByNode(ws, nodeID)
	if err != nil {
		return nil, err
	}
	return o.merge(base, o.addedByNode[nodeID], func(a *structs.Allocation) bool { return a.NodeID == nodeID }), nil
}

func (o *overlay) AllocsByNodeTerminal(ws memdb.WatchSet, nodeID string, terminal bool) ([]*structs.Allocation, error) {
	if !o.touched[nodeID] {
		return o.State.AllocsByNodeTerminal(ws, nodeID, terminal)
	}
	// A stored alloc may have changed its terminal state in the overlay,
	// so read both halves and filter.
	all, err := o.State.AllocsByNode(ws, nodeID)
	if err != nil {
		return nil, err
	}
	return o.merge(all, o.addedByNode[nodeID], func(a *structs.Allocation) bool { return a.NodeID == nodeID && a.TerminalStatus() == terminal }), nil
}

// NodeUsage sums the node's live allocs as the overlay has them: the
// base's summary while no overlaid alloc is on the node.
func (o *overlay) NodeUsage(ws memdb.WatchSet, nodeID string) (*structs.NodeUsage, error) {
	if !o.touched[nodeID] {
		return o.State.NodeUsage(ws, nodeID)
	}
	live, err := o.AllocsByNodeTerminal(ws, nodeID, false)
	if err != nil {
		return nil, err
	}
	return structs.NewNodeUsage(nodeID, live), nil
}

// apply commits a plan to the overlay as the plan applier and FSM would:
// stops and preemptions become new versions of the allocs, placements are
// written with the plan's job.
func (o *overlay) apply(p *structs.Plan) {
	idx := o.next()
	for _, node := range sortedKeys(p.NodeUpdate) {
		for _, a := range p.NodeUpdate[node] {
			o.put(o.updated(a, idx, p.Job))
		}
	}
	for _, node := range sortedKeys(p.NodePreemptions) {
		for _, a := range p.NodePreemptions[node] {
			u := o.updated(a, idx, p.Job)
			u.DesiredStatus = structs.AllocDesiredStatusEvict
			o.put(u)
		}
	}
	for _, node := range sortedKeys(p.NodeAllocation) {
		for _, a := range p.NodeAllocation[node] {
			c := a.CopySkipJob()
			if c.Job == nil {
				c.Job = p.Job
			}
			if c.CreateIndex == 0 {
				c.CreateIndex = idx
			}
			c.ModifyIndex, c.AllocModifyIndex = idx, idx
			if c.ClientStatus == "" {
				c.ClientStatus = structs.AllocClientStatusPending
			}
			o.put(c)
		}
	}
}

// updated is the stored alloc a plan's stop or preemption names, with the
// plan's desired status, descriptions and client status on it.
func (o *overlay) updated(a *structs.Allocation, idx uint64, job *structs.Job) *structs.Allocation {
	cur, _ := o.AllocByID(nil, a.ID)
	if cur == nil {
		cur = a
	}
	c := cur.CopySkipJob()
	c.DesiredStatus = a.DesiredStatus
	c.DesiredDescription = a.DesiredDescription
	if a.ClientStatus != "" {
		c.ClientStatus = a.ClientStatus
	}
	c.ModifyIndex = idx
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	return keys
}
