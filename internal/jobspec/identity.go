package jobspec

import (
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/jobspec/fields"
)

var identitySchema = schema([]string{"name", "aud", "change_mode", "change_signal", "env", "file", "filepath",
	"service_name", "ttl", "extra_claims"})

// identity decodes the task's default `identity` block (no name, or
// "default"): how its workload identity is exposed. Named identities (for
// Consul, Vault or other audiences) are refused (see decoder.refuse).
func (b *block) identity() *api.WorkloadIdentity {
	var out *api.WorkloadIdentity
	for _, hb := range b.all("identity") {
		ib := b.d.openBlock(hb, identitySchema)
		w := &api.WorkloadIdentity{}
		b.d.markBlock(w, hb.DefRange)
		ib.str("name", &w.Name)
		ib.boolean("env", &w.Env)
		ib.boolean("file", &w.File)
		ib.str("filepath", &w.Filepath)
		ib.strList("aud", &w.Audience)
		ib.str("change_mode", &w.ChangeMode)
		ib.str("change_signal", &w.ChangeSignal)
		ib.str("service_name", &w.ServiceName)
		ib.dur("ttl", &w.TTL)
		ib.strList("extra_claims", &w.ExtraClaims)
		if w.Name != "" && w.Name != "default" {
			b.d.refuse(hb.DefRange, "Unsupported identity block",
				"identity "+w.Name+": "+fields.Lookup("Task.Identities").Message)
			continue
		}
		out = w
	}
	return out
}
