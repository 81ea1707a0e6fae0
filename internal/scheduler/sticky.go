package scheduler

import "github.com/drover-project/drover/internal/structs"

// selectSticky places a replacement of a group with a sticky (or migrate)
// ephemeral_disk on its previous alloc's node when that node is still a
// candidate and fits, as Nomad prefers it, so the client can hand the
// previous alloc's data over; nil when it does not apply or fit (the
// caller then ranks every node as usual).
func (g *groupStack) selectSticky(prev *structs.Allocation) (*option, *structs.AllocMetric, []*structs.Allocation) {
	d := g.tg.EphemeralDisk
	if prev == nil || d == nil || !d.Sticky && !d.Migrate {
		return nil, nil, nil
	}
	for _, n := range g.s.nodes {
		if n.ID == prev.NodeID {
			opt, m := g.selectOn(n)
			if opt == nil {
				return nil, nil, nil
			}
			return opt, m, nil
		}
	}
	return nil, nil, nil
}
