package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

var resourcesSchema = schema([]string{"cpu", "cores", "memory", "memory_max", "disk", "iops", "secrets"},
	"network", "device:name", "numa")
var deviceSchema = schema([]string{"count"}, "constraint", "affinity")
var numaSchema = schema([]string{"affinity", "devices"})

// resources decodes a task's resources block; unset amounts stay nil for
// the server's defaults.
func (b *block) resources() *api.Resources {
	return decodeOne(b, "resources", resourcesSchema, func(rb *block, r *api.Resources) {
		rb.intPtr("cpu", &r.CPU)
		rb.intPtr("cores", &r.Cores)
		rb.intPtr("memory", &r.MemoryMB)
		rb.intPtr("memory_max", &r.MemoryMaxMB)
		rb.intPtr("disk", &r.DiskMB)
		rb.intPtr("iops", &r.IOPS)
		rb.intPtr("secrets", &r.SecretsMB)
		r.Networks = rb.networks()
		r.Devices = rb.devices()
		r.NUMA = rb.numa()
	})
}

// devices decodes requested devices ("nvidia/gpu") with their own
// constraints and affinities.
func (b *block) devices() []*api.RequestedDevice {
	var out []*api.RequestedDevice
	for _, hb := range b.all("device") {
		db := b.d.openBlock(hb, deviceSchema)
		dev := &api.RequestedDevice{Name: hb.Labels[0]}
		b.d.markBlock(dev, hb.DefRange)
		db.uint64Ptr("count", &dev.Count)
		dev.Constraints = db.constraints()
		dev.Affinities = db.affinities()
		out = append(out, dev)
	}
	return out
}

func (b *block) numa() *api.NUMAResource {
	return decodeOne(b, "numa", numaSchema, func(nb *block, n *api.NUMAResource) {
		nb.str("affinity", &n.Affinity)
		nb.strList("devices", &n.Devices)
	})
}
