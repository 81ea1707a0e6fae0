package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

// The policy blocks below are decoded field by field into the API structs,
// leaving unset fields nil: the server fills in defaults, so a job that
// omits a field keeps following the server's default if it changes.

var updateSchema = schema([]string{"stagger", "max_parallel", "health_check", "min_healthy_time",
	"healthy_deadline", "progress_deadline", "canary", "auto_revert", "auto_promote"})

func (b *block) update() *api.UpdateStrategy {
	return decodeOne(b, "update", updateSchema, func(ub *block, u *api.UpdateStrategy) {
		ub.durPtr("stagger", &u.Stagger)
		ub.intPtr("max_parallel", &u.MaxParallel)
		ub.strPtr("health_check", &u.HealthCheck)
		ub.durPtr("min_healthy_time", &u.MinHealthyTime)
		ub.durPtr("healthy_deadline", &u.HealthyDeadline)
		ub.durPtr("progress_deadline", &u.ProgressDeadline)
		ub.intPtr("canary", &u.Canary)
		ub.boolPtr("auto_revert", &u.AutoRevert)
		ub.boolPtr("auto_promote", &u.AutoPromote)
	})
}

var migrateSchema = schema([]string{"max_parallel", "health_check", "min_healthy_time", "healthy_deadline"})

func (b *block) migrate() *api.MigrateStrategy {
	return decodeOne(b, "migrate", migrateSchema, func(mb *block, m *api.MigrateStrategy) {
		mb.intPtr("max_parallel", &m.MaxParallel)
		mb.strPtr("health_check", &m.HealthCheck)
		mb.durPtr("min_healthy_time", &m.MinHealthyTime)
		mb.durPtr("healthy_deadline", &m.HealthyDeadline)
	})
}

var rescheduleSchema = schema([]string{"attempts", "interval", "delay", "delay_function", "max_delay", "unlimited"})

func (b *block) reschedule() *api.ReschedulePolicy {
	return decodeOne(b, "reschedule", rescheduleSchema, func(rb *block, r *api.ReschedulePolicy) {
		rb.intPtr("attempts", &r.Attempts)
		rb.durPtr("interval", &r.Interval)
		rb.durPtr("delay", &r.Delay)
		rb.strPtr("delay_function", &r.DelayFunction)
		rb.durPtr("max_delay", &r.MaxDelay)
		rb.boolPtr("unlimited", &r.Unlimited)
	})
}

var restartSchema = schema([]string{"attempts", "interval", "delay", "mode", "render_templates"})

func (b *block) restart() *api.RestartPolicy {
	return decodeOne(b, "restart", restartSchema, func(rb *block, r *api.RestartPolicy) {
		rb.intPtr("attempts", &r.Attempts)
		rb.durPtr("interval", &r.Interval)
		rb.durPtr("delay", &r.Delay)
		rb.strPtr("mode", &r.Mode)
		rb.boolPtr("render_templates", &r.RenderTemplates)
	})
}

var disconnectSchema = schema([]string{"lost_after", "stop_on_client_after", "replace", "reconcile"})

func (b *block) disconnect() *api.DisconnectStrategy {
	return decodeOne(b, "disconnect", disconnectSchema, func(db *block, s *api.DisconnectStrategy) {
		db.durPtr("lost_after", &s.LostAfter)
		db.durPtr("stop_on_client_after", &s.StopOnClientAfter)
		db.boolPtr("replace", &s.Replace)
		db.strPtr("reconcile", &s.Reconcile)
	})
}

var ephemeralDiskSchema = schema([]string{"sticky", "migrate", "size"})

func (b *block) ephemeralDisk() *api.EphemeralDisk {
	return decodeOne(b, "ephemeral_disk", ephemeralDiskSchema, func(eb *block, e *api.EphemeralDisk) {
		eb.boolPtr("sticky", &e.Sticky)
		eb.boolPtr("migrate", &e.Migrate)
		eb.intPtr("size", &e.SizeMB)
	})
}
