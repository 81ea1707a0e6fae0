package taskrunner

import (
	"fmt"
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// devicesRefused is the error for a task granted device instances. In
// Nomad the device plugin that fingerprinted them reserves them for the
// task (environment such as NVIDIA_VISIBLE_DEVICES, device nodes, mounts);
// Drover clients load no device plugins and fingerprint no devices, so a
// task can only be granted some on a node registered with devices by
// other means, and running it without them would be wrong: it fails
// before it starts, naming them.
func devicesRefused(a *structs.Allocation, task string) error {
	if a.AllocatedResources == nil || a.AllocatedResources.Tasks[task] == nil {
		return nil
	}
	var names []string
	for _, d := range a.AllocatedResources.Tasks[task].Devices {
		if d != nil && len(d.DeviceIDs) > 0 {
			names = append(names, fmt.Sprintf("%s/%s/%s %s", d.Vendor, d.Type, d.Name, strings.Join(d.DeviceIDs, ",")))
		}
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("the task was granted devices (%s) but this client has no device plugin to reserve them", strings.Join(names, "; "))
}
