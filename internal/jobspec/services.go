package jobspec

import (
	"github.com/hashicorp/nomad/api"
	"github.com/zclconf/go-cty/cty"
)

// Services and checks are stored as written (Drover registers them later);
// Consul-only parts such as connect are accepted with a warning.

var serviceSchema = schema(
	[]string{"name", "tags", "canary_tags", "enable_tag_override", "port", "address_mode", "address",
		"task", "on_update", "provider", "cluster", "kind", "meta", "canary_meta", "tagged_addresses"},
	"check", "check_restart", "connect", "meta", "canary_meta", "tagged_addresses", "identity", "weights",
)

func (b *block) services() []*api.Service {
	var out []*api.Service
	for _, hb := range b.all("service") {
		out = append(out, b.d.service(b.d.openBlock(hb, serviceSchema)))
	}
	return out
}

func (d *decoder) service(b *block) *api.Service {
	s := &api.Service{}
	d.markBlock(s, b.rng)
	b.str("name", &s.Name)
	b.strList("tags", &s.Tags)
	b.strList("canary_tags", &s.CanaryTags)
	b.boolean("enable_tag_override", &s.EnableTagOverride)
	b.str("port", &s.PortLabel)
	b.str("address_mode", &s.AddressMode)
	b.str("address", &s.Address)
	b.str("task", &s.TaskName)
	b.str("on_update", &s.OnUpdate)
	b.str("provider", &s.Provider)
	b.str("cluster", &s.Cluster)
	b.str("kind", &s.Kind)
	s.Meta = b.meta("meta")
	s.CanaryMeta = b.meta("canary_meta")
	s.TaggedAddresses = b.meta("tagged_addresses")
	s.CheckRestart = b.checkRestart()
	s.Weights = b.weights()
	// Checks are decoded in place (the slice never grows past its
	// capacity), so that the positions recorded for their fields hold.
	if checks := b.all("check"); len(checks) > 0 {
		s.Checks = make([]api.ServiceCheck, len(checks))
		for i, hb := range checks {
			cb := d.openBlock(hb, checkSchema)
			d.markBlock(&s.Checks[i], hb.DefRange)
			d.check(cb, &s.Checks[i])
		}
	}
	b.unsupported("connect", "Service.Connect")
	b.unsupported("identity", "Service.Identity")
	return s
}

var checkSchema = taggedSchema[api.ServiceCheck]("header", "check_restart")

func (d *decoder) check(b *block, c *api.ServiceCheck) {
	readTagged(b, c)
	c.Header = b.header()
	c.CheckRestart = b.checkRestart()
}

// header decodes an HTTP check's header block: each header takes a list
// of values, as in HTTP.
func (b *block) header() map[string][]string {
	hb := b.one("header")
	if hb == nil {
		return nil
	}
	attrs, diags := hb.Body.JustAttributes()
	b.d.diags = append(b.d.diags, diags...)
	fields := &block{d: b.d, attrs: attrs, rng: hb.DefRange}
	out := map[string][]string{}
	for _, k := range sortedKeys(attrs) {
		if v, ok := read(fields, k, cty.List(cty.String), ctyStrings); ok {
			out[k] = v
		}
	}
	return out
}

var checkRestartSchema = schema([]string{"limit", "grace", "ignore_warnings"})

func (b *block) checkRestart() *api.CheckRestart {
	return decodeOne(b, "check_restart", checkRestartSchema, func(cb *block, r *api.CheckRestart) {
		cb.intVal("limit", &r.Limit)
		cb.durPtr("grace", &r.Grace)
		cb.boolean("ignore_warnings", &r.IgnoreWarnings)
	})
}

var weightsSchema = schema([]string{"passing", "warning"})

func (b *block) weights() *api.ServiceWeights {
	return decodeOne(b, "weights", weightsSchema, func(wb *block, w *api.ServiceWeights) {
		wb.intVal("passing", &w.Passing)
		wb.intVal("warning", &w.Warning)
	})
}
