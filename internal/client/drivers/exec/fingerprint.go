package exec

import (
	"context"
	"os"
	"runtime"

	"github.com/drover-project/drover/internal/structs"
)

// Health descriptions.
const (
	HealthyDescription   = "healthy"
	NotLinuxDescription  = "exec needs Linux namespaces and cgroups"
	NotRootDescription   = "exec needs the client to run as root (namespaces, chroot, cgroups)"
	NoCgroupsDescription = "exec found no usable cgroups: neither v2 at /sys/fs/cgroup nor v1 memory and cpu controllers"
)

// Fingerprint is healthy only where the driver can actually isolate.
func (d *Driver) Fingerprint(context.Context) *structs.DriverInfo {
	info := &structs.DriverInfo{Attributes: map[string]string{}}
	cg := DetectCgroups()
	switch {
	case runtime.GOOS != "linux":
		info.HealthDescription = NotLinuxDescription
	case os.Geteuid() != 0:
		info.HealthDescription = NotRootDescription
	case cg == CgroupNone:
		info.HealthDescription = NoCgroupsDescription
	default:
		info.Detected, info.Healthy, info.HealthDescription = true, true, HealthyDescription
		info.Attributes["driver.exec"] = "1"
		info.Attributes["driver.exec.cgroup"] = cg
	}
	return info
}

// usable returns the fingerprint's reason when the driver cannot run.
func (d *Driver) usable() (string, bool) {
	info := d.Fingerprint(context.Background())
	return info.HealthDescription, info.Healthy
}
