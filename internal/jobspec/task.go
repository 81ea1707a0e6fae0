package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
	"reflect"
)

var taskSchema = schema(
	[]string{"driver", "user", "kill_timeout", "kill_signal", "leader", "shutdown_delay",
		"kind", "meta", "env", "config"},
	"config", "constraint", "affinity", "env", "meta", "service", "resources", "restart", "logs",
	"artifact", "template", "dispatch_payload", "lifecycle", "volume_mount",
	"vault", "consul", "identity", "csi_plugin", "scaling:name", "secret:name", "action:name", "schedule",
)

// task decodes a task block.
func (d *decoder) task(hb *hcl.Block) *api.Task {
	b := d.openBlock(hb, taskSchema)
	t := &api.Task{Name: hb.Labels[0]}
	d.markBlock(t, hb.DefRange)
	b.str("driver", &t.Driver)
	b.str("user", &t.User)
	b.durPtr("kill_timeout", &t.KillTimeout)
	b.str("kill_signal", &t.KillSignal)
	b.boolean("leader", &t.Leader)
	b.dur("shutdown_delay", &t.ShutdownDelay)
	b.str("kind", &t.Kind)
	t.Config = b.config()
	if cfg := b.all("config"); len(cfg) > 0 && b.d.at != nil { // all: one has reported duplicates
		b.d.at[reflect.ValueOf(&t.Config).Pointer()] = cfg[0].DefRange
	} else {
		b.mark(&t.Config, "config")
	}
	t.Meta = b.meta("meta")
	t.Env = b.meta("env")
	t.Constraints = b.constraints()
	t.Affinities = b.affinities()
	t.Services = b.services()
	t.Resources = b.resources()
	t.RestartPolicy = b.restart()
	t.LogConfig = b.logs()
	t.Artifacts = b.artifacts()
	t.Templates = b.templates()
	t.DispatchPayload = b.dispatchPayload()
	t.Lifecycle = b.lifecycle()
	t.VolumeMounts = b.volumeMounts()
	t.Identity, t.Identities = b.identities()
	t.Actions = b.actions()
	b.unsupported("vault", "Task.Vault")
	b.unsupported("consul", "Task.Consul")
	b.unsupported("csi_plugin", "Task.CSIPluginConfig")
	b.unsupported("scaling", "Task.ScalingPolicies")
	b.unsupported("secret", "Task.Secrets")
	b.unsupported("schedule", "Task.Schedule")
	return t
}

// config returns the driver configuration, from a config block or a config
// attribute (an object), as the generic map the driver will decode.
func (b *block) config() map[string]any {
	if hb := b.one("config"); hb != nil {
		return b.d.configBody(hb.Body)
	}
	attr, ok := b.attrs["config"]
	if !ok {
		return nil
	}
	v, ok := b.d.eval(attr.Expr)
	if !ok || v.IsNull() {
		return nil
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		b.errAt(attr, "Incorrect attribute value type", "config must be an object.")
		return nil
	}
	m, _ := goValue(v).(map[string]any)
	return m
}

var lifecycleSchema = schema([]string{"hook", "sidecar"})

func (b *block) lifecycle() *api.TaskLifecycle {
	hb := b.one("lifecycle")
	if hb == nil {
		return nil
	}
	lb := b.d.openBlock(hb, lifecycleSchema)
	l := &api.TaskLifecycle{}
	if !lb.has("hook") {
		b.d.diags = append(b.d.diags, errorf(hb.DefRange, "Missing required argument",
			"The lifecycle block needs a hook (prestart, poststart or poststop)."))
	}
	lb.str("hook", &l.Hook)
	lb.boolean("sidecar", &l.Sidecar)
	return l
}

var logsSchema = schema([]string{"max_files", "max_file_size", "enabled", "disabled"})

func (b *block) logs() *api.LogConfig {
	return decodeOne(b, "logs", logsSchema, func(lb *block, l *api.LogConfig) {
		lb.intPtr("max_files", &l.MaxFiles)
		lb.intPtr("max_file_size", &l.MaxFileSizeMB)
		lb.boolPtr("enabled", &l.Enabled)
		lb.boolPtr("disabled", &l.Disabled)
	})
}

var volumeMountSchema = schema([]string{"volume", "destination", "read_only", "propagation_mode", "selinux_label"})

func (b *block) volumeMounts() []*api.VolumeMount {
	var out []*api.VolumeMount
	for _, hb := range b.all("volume_mount") {
		vb := b.d.openBlock(hb, volumeMountSchema)
		m := &api.VolumeMount{}
		b.d.markBlock(m, hb.DefRange)
		vb.strPtr("volume", &m.Volume)
		vb.strPtr("destination", &m.Destination)
		vb.boolPtr("read_only", &m.ReadOnly)
		vb.strPtr("propagation_mode", &m.PropagationMode)
		vb.strPtr("selinux_label", &m.SELinuxLabel)
		out = append(out, m)
	}
	return out
}
