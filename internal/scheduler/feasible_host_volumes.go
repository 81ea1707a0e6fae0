package scheduler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// FilterHostVolumes is the reason prefix of a node without a group's host
// volume (Nomad's wording); the volume's source follows it so a blocked
// eval's FailedTGAllocs names what is missing.
const FilterHostVolumes = "missing compatible host volumes"

// hostVolumeFilter keeps nodes that offer every host volume the group
// claims, writable where the claim is. A per_alloc claim needs one of the
// numbered volumes (source[N]); which index lands where is the client's
// concern. It runs per node: host volumes are not part of the computed
// class.
func hostVolumeFilter(tg *structs.TaskGroup) nodeFilter {
	claims := hostVolumeClaims(tg)
	return filterFunc(func(n *structs.Node) (bool, string) {
		for _, v := range claims {
			if !hasHostVolume(n, v) {
				return false, fmt.Sprintf("%s: %s", FilterHostVolumes, v.Source)
			}
		}
		return true, ""
	})
}

// hostVolumeClaims lists the group's host volume claims in name order.
func hostVolumeClaims(tg *structs.TaskGroup) []*structs.VolumeRequest {
	var out []*structs.VolumeRequest
	for _, v := range tg.Volumes {
		if v != nil && v.Type == structs.VolumeTypeHost {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func hasHostVolume(n *structs.Node, v *structs.VolumeRequest) bool {
	usable := func(hv *structs.ClientHostVolumeConfig) bool { return hv != nil && (v.ReadOnly || !hv.ReadOnly) }
	if !v.PerAlloc {
		return usable(n.HostVolumes[v.Source])
	}
	for name, hv := range n.HostVolumes {
		if strings.HasPrefix(name, v.Source+"[") && usable(hv) {
			return true
		}
	}
	return false
}
