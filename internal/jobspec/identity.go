package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
)

var identitySchema = schema([]string{"name", "aud", "change_mode", "change_signal", "env", "file", "filepath",
	"service_name", "ttl", "extra_claims"})

// identity decodes the task's default `identity` block (no name, or
// "default"): how its workload identity is exposed. Named identities (for
// Consul, Vault or other audiences) are accepted with a warning.
func (b *block) identity() *api.WorkloadIdentity {
	var out *api.WorkloadIdentity
	for _, hb := range b.all("identity") {
		ib := b.d.openBlock(hb, identitySchema)
		w := &api.WorkloadIdentity{}
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
			b.d.diags = append(b.d.diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning, Summary: "Ignored identity block",
				Detail:  "Drover signs only the default workload identity; identity " + w.Name + " is accepted and ignored.",
				Subject: hb.DefRange.Ptr(),
			})
			continue
		}
		out = w
	}
	return out
}
