package taskrunner

import (
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// Ports returns the ports granted to a task: the group's ports (shared by
// every task of the alloc) followed by any the task was granted itself.
func Ports(alloc *structs.Allocation, task string) []drivers.PortMapping {
	ar := alloc.AllocatedResources
	if ar == nil {
		return nil
	}
	var out []drivers.PortMapping
	seen := map[string]bool{}
	add := func(p drivers.PortMapping) {
		if p.Label == "" || seen[p.Label] {
			return
		}
		seen[p.Label] = true
		out = append(out, p)
	}
	for _, p := range ar.Shared.Ports {
		add(drivers.PortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: p.HostIP})
	}
	nets := ar.Shared.Networks
	if tr := ar.Tasks[task]; tr != nil {
		nets = append(append([]*structs.NetworkResource(nil), nets...), tr.Networks...)
	}
	for _, n := range nets {
		if n == nil {
			continue
		}
		for _, ps := range [][]structs.Port{n.ReservedPorts, n.DynamicPorts} {
			for _, p := range ps {
				add(drivers.PortMapping{Label: p.Label, Value: p.Value, To: p.To, HostIP: n.IP})
			}
		}
	}
	return out
}
