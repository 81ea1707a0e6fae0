package taskrunner

import (
	"fmt"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// volumeMounts resolves the task's volume_mount blocks through the group's
// host volume claims to the node's host volume paths. A mount is read-only
// when the mount, the claim or the host volume says so.
func volumeMounts(alloc *structs.Allocation, task *structs.Task, node *structs.Node) ([]drivers.MountConfig, error) {
	if len(task.VolumeMounts) == 0 {
		return nil, nil
	}
	tg := alloc.Group()
	var out []drivers.MountConfig
	for _, vm := range task.VolumeMounts {
		var req *structs.VolumeRequest
		if tg != nil {
			req = tg.Volumes[vm.Volume]
		}
		if req == nil || req.Type != structs.VolumeTypeHost {
			return nil, fmt.Errorf("volume_mount: no host volume %q in the group", vm.Volume)
		}
		source := req.SourceFor(alloc.Index())
		var hv *structs.ClientHostVolumeConfig
		if node != nil {
			hv = node.HostVolumes[source]
		}
		if hv == nil {
			return nil, fmt.Errorf("volume_mount: host volume %q not on this node", source)
		}
		out = append(out, drivers.MountConfig{HostPath: hv.Path, TaskPath: vm.Destination, ReadOnly: vm.ReadOnly || req.ReadOnly || hv.ReadOnly})
	}
	return out, nil
}
