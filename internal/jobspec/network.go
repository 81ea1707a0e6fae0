package jobspec

import (
	"github.com/hashicorp/nomad/api"
)

var networkSchema = schema([]string{"mode", "hostname", "mbits", "device", "cidr", "ip"},
	"port:label", "dns", "cni")
var portSchema = schema([]string{"static", "to", "host_network", "ignore_collision"})
var cniSchema = schema([]string{"args"})
var dnsSchema = schema([]string{"servers", "searches", "options"})

// networks decodes the network blocks of a group (or, in older files, of a
// task's resources).
func (b *block) networks() []*api.NetworkResource {
	var out []*api.NetworkResource
	for _, hb := range b.all("network") {
		nb := b.d.openBlock(hb, networkSchema)
		n := &api.NetworkResource{}
		nb.str("mode", &n.Mode)
		nb.str("hostname", &n.Hostname)
		nb.intPtr("mbits", &n.MBits)
		nb.str("device", &n.Device)
		nb.str("cidr", &n.CIDR)
		nb.str("ip", &n.IP)
		n.DNS = nb.dns()
		nb.ports(n)
		n.CNI = nb.cni()
		out = append(out, n)
	}
	return out
}

// ports sorts port blocks the way Nomad's parser does: a port with a
// static number is reserved, any other is dynamic.
func (b *block) ports(n *api.NetworkResource) {
	for _, hb := range b.all("port") {
		pb := b.d.openBlock(hb, portSchema)
		p := api.Port{Label: hb.Labels[0]}
		pb.intVal("static", &p.Value)
		pb.intVal("to", &p.To)
		pb.str("host_network", &p.HostNetwork)
		pb.boolean("ignore_collision", &p.IgnoreCollision)
		if p.Value > 0 {
			n.ReservedPorts = append(n.ReservedPorts, p)
		} else {
			n.DynamicPorts = append(n.DynamicPorts, p)
		}
	}
}

func (b *block) dns() *api.DNSConfig {
	return decodeOne(b, "dns", dnsSchema, func(db *block, c *api.DNSConfig) {
		db.strList("servers", &c.Servers)
		db.strList("searches", &c.Searches)
		db.strList("options", &c.Options)
	})
}

func (b *block) cni() *api.CNIConfig {
	return decodeOne(b, "cni", cniSchema, func(cb *block, c *api.CNIConfig) {
		cb.strMap("args", &c.Args)
	})
}
