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
		b.d.markBlock(n, hb.DefRange)
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
	// Ports are decoded in place (the slices never grow past their
	// capacity), so that the positions recorded for their fields hold.
	blocks := b.all("port")
	n.ReservedPorts = make([]api.Port, 0, len(blocks))
	n.DynamicPorts = make([]api.Port, 0, len(blocks))
	for _, hb := range blocks {
		pb := b.d.openBlock(hb, portSchema)
		var static int
		pb.intVal("static", &static)
		list := &n.DynamicPorts
		if static > 0 {
			list = &n.ReservedPorts
		}
		*list = append(*list, api.Port{Label: hb.Labels[0]})
		p := &(*list)[len(*list)-1]
		pb.intVal("static", &p.Value)
		pb.intVal("to", &p.To)
		pb.str("host_network", &p.HostNetwork)
		pb.boolean("ignore_collision", &p.IgnoreCollision)
	}
	if len(n.ReservedPorts) == 0 {
		n.ReservedPorts = nil
	}
	if len(n.DynamicPorts) == 0 {
		n.DynamicPorts = nil
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
