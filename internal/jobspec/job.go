package jobspec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/nomad/api"
)

var jobSchema = schema(
	[]string{"region", "namespace", "id", "name", "type", "priority", "all_at_once",
		"datacenters", "node_pool", "meta", "vault_token", "consul_token"},
	"group:name", "constraint", "affinity", "spread", "update", "migrate", "reschedule",
	"periodic", "parameterized", "meta", "multiregion", "ui", "vault", "consul",
)

// job decodes the job block. The label is the job ID and, as in Nomad's
// parser, the name defaults to the ID; nothing else is defaulted.
func (d *decoder) job(hb *hcl.Block) *api.Job {
	b := d.openBlock(hb, jobSchema)
	id := hb.Labels[0]
	j := &api.Job{ID: &id}
	d.markBlock(j, hb.DefRange)
	b.strPtr("id", &j.ID)
	b.strPtr("name", &j.Name)
	if j.Name == nil {
		name := *j.ID
		j.Name = &name
	}
	b.strPtr("region", &j.Region)
	b.strPtr("namespace", &j.Namespace)
	b.strPtr("type", &j.Type)
	b.intPtr("priority", &j.Priority)
	b.boolPtr("all_at_once", &j.AllAtOnce)
	b.strList("datacenters", &j.Datacenters)
	b.strPtr("node_pool", &j.NodePool)
	p := b.placement()
	j.Meta, j.Constraints, j.Affinities, j.Spreads = p.meta, p.constraints, p.affinities, p.spreads
	j.Update = b.update()
	j.Migrate = b.migrate()
	j.Reschedule = b.reschedule()
	j.Periodic = b.periodic()
	j.ParameterizedJob = b.parameterized()
	for _, g := range b.all("group") {
		j.TaskGroups = append(j.TaskGroups, d.group(g))
	}
	b.unsupported("multiregion", "Job.Multiregion")
	j.UI = b.ui()
	b.unsupported("vault", "Job.VaultNamespace")
	b.unsupported("consul", "Job.ConsulNamespace")
	b.ignoreAttrs("vault_token", "consul_token")
	return j
}

var uiSchema = schema([]string{"description"}, "link")
var uiLinkSchema = schema([]string{"label", "url"})

// ui decodes the job's ui block into Job.UI: the field contract warns that
// Drover ignores it (it only decorates Nomad's web UI), here with the
// block's position and again at register.
func (b *block) ui() *api.JobUIConfig {
	return decodeOne(b, "ui", uiSchema, func(ub *block, u *api.JobUIConfig) {
		ub.str("description", &u.Description)
		for _, hb := range ub.all("link") {
			lb := ub.d.openBlock(hb, uiLinkSchema)
			l := &api.JobUILink{}
			lb.str("label", &l.Label)
			lb.str("url", &l.URL)
			u.Links = append(u.Links, l)
		}
	})
}
