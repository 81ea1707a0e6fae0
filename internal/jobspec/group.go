package jobspec

//lint:file-ignore SA1019 job files and API clients still send Nomad's deprecated disconnect fields; we accept them

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
)

var groupSchema = schema(
	[]string{"count", "shutdown_delay", "max_run_duration", "max_client_disconnect",
		"stop_after_client_disconnect", "prevent_reschedule_on_lost", "meta"},
	"task:name", "constraint", "affinity", "spread", "restart", "reschedule", "ephemeral_disk",
	"update", "migrate", "network", "meta", "service", "scaling", "disconnect", "volume:name", "consul",
)

// group decodes a task group block.
func (d *decoder) group(hb *hcl.Block) *api.TaskGroup {
	b := d.openBlock(hb, groupSchema)
	name := hb.Labels[0]
	g := &api.TaskGroup{Name: &name}
	d.markBlock(g, hb.DefRange)
	b.intPtr("count", &g.Count)
	b.durPtr("shutdown_delay", &g.ShutdownDelay)
	b.durPtr("max_run_duration", &g.MaxRunDuration)
	b.durPtr("max_client_disconnect", &g.MaxClientDisconnect)
	b.durPtr("stop_after_client_disconnect", &g.StopAfterClientDisconnect)
	b.boolPtr("prevent_reschedule_on_lost", &g.PreventRescheduleOnLost)
	p := b.placement()
	g.Meta, g.Constraints, g.Affinities, g.Spreads = p.meta, p.constraints, p.affinities, p.spreads
	g.RestartPolicy = b.restart()
	g.ReschedulePolicy = b.reschedule()
	g.EphemeralDisk = b.ephemeralDisk()
	g.Update = b.update()
	g.Migrate = b.migrate()
	g.Networks = b.networks()
	g.Services = b.services()
	g.Scaling = b.scaling()
	g.Disconnect = b.disconnect()
	g.Volumes = b.volumes()
	for _, t := range b.all("task") {
		g.Tasks = append(g.Tasks, d.task(t))
	}
	b.unsupported("consul", "TaskGroup.Consul")
	return g
}

var scalingSchema = schema([]string{"min", "max", "enabled", "type"}, "policy")

// scaling decodes a group's scaling block; the policy body is free-form
// (it belongs to the autoscaler), so it is kept as a map like driver config.
func (b *block) scaling() *api.ScalingPolicy {
	return decodeOne(b, "scaling", scalingSchema, func(sb *block, s *api.ScalingPolicy) {
		sb.int64Ptr("min", &s.Min)
		sb.int64Ptr("max", &s.Max)
		sb.boolPtr("enabled", &s.Enabled)
		sb.str("type", &s.Type)
		if pb := sb.one("policy"); pb != nil {
			s.Policy = b.d.configBody(pb.Body)
		}
	})
}

var volumeSchema = schema([]string{"type", "source", "read_only", "sticky", "access_mode",
	"attachment_mode", "per_alloc"}, "mount_options")
var mountOptionsSchema = schema([]string{"fs_type", "mount_flags"})

// volumes decodes the group's volume requests, keyed by their label.
func (b *block) volumes() map[string]*api.VolumeRequest {
	blocks := b.all("volume")
	if len(blocks) == 0 {
		return nil
	}
	out := make(map[string]*api.VolumeRequest, len(blocks))
	for _, hb := range blocks {
		vb := b.d.openBlock(hb, volumeSchema)
		v := &api.VolumeRequest{Name: hb.Labels[0]}
		b.d.markBlock(v, hb.DefRange)
		vb.str("type", &v.Type)
		vb.str("source", &v.Source)
		vb.boolean("read_only", &v.ReadOnly)
		vb.boolean("sticky", &v.Sticky)
		vb.str("access_mode", &v.AccessMode)
		vb.str("attachment_mode", &v.AttachmentMode)
		vb.boolean("per_alloc", &v.PerAlloc)
		if mo := vb.one("mount_options"); mo != nil {
			mb := b.d.openBlock(mo, mountOptionsSchema)
			v.MountOptions = &api.CSIMountOptions{}
			mb.str("fs_type", &v.MountOptions.FSType)
			mb.strList("mount_flags", &v.MountOptions.MountFlags)
		}
		out[v.Name] = v
	}
	return out
}
