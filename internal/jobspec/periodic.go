package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

var periodicSchema = schema([]string{"enabled", "cron", "crons", "prohibit_overlap", "time_zone"})

// periodic decodes the periodic block. SpecType is not in the file: Nomad's
// parser sets it to "cron" because that is the only kind a file can write.
func (b *block) periodic() *api.PeriodicConfig {
	return decodeOne(b, "periodic", periodicSchema, func(pb *block, p *api.PeriodicConfig) {
		pb.boolPtr("enabled", &p.Enabled)
		pb.strPtr("cron", &p.Spec)
		pb.strList("crons", &p.Specs)
		pb.boolPtr("prohibit_overlap", &p.ProhibitOverlap)
		pb.strPtr("time_zone", &p.TimeZone)
		if p.Spec != nil || len(p.Specs) > 0 {
			cron := api.PeriodicSpecCron
			p.SpecType = &cron
		}
	})
}

var parameterizedSchema = schema([]string{"payload", "meta_required", "meta_optional"})

func (b *block) parameterized() *api.ParameterizedJobConfig {
	return decodeOne(b, "parameterized", parameterizedSchema, func(pb *block, p *api.ParameterizedJobConfig) {
		pb.str("payload", &p.Payload)
		pb.strList("meta_required", &p.MetaRequired)
		pb.strList("meta_optional", &p.MetaOptional)
	})
}

var dispatchPayloadSchema = schema([]string{"file"})

func (b *block) dispatchPayload() *api.DispatchPayloadConfig {
	hb := b.one("dispatch_payload")
	if hb == nil {
		return nil
	}
	p := &api.DispatchPayloadConfig{}
	b.d.openBlock(hb, dispatchPayloadSchema).str("file", &p.File)
	return p
}
