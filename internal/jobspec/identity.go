package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

var identitySchema = schema([]string{"name", "aud", "change_mode", "change_signal", "env", "file", "filepath",
	"service_name", "ttl", "extra_claims"})

// identities decodes the task's `identity` blocks: the default one (no
// name, or "default") is how its workload identity is exposed; named ones
// are tokens for other audiences.
func (b *block) identities() (def *api.WorkloadIdentity, named []*api.WorkloadIdentity) {
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
		if w.Name == "" || w.Name == "default" {
			def = w
			continue
		}
		named = append(named, w)
	}
	return def, named
}
