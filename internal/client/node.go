package client

import (
	"maps"

	"github.com/drover-project/drover/internal/client/fingerprint"
	"github.com/drover-project/drover/internal/structs"
)

// buildNode turns a fingerprint and the config into the Node the client
// registers. The computed class is left to the server, which owns the
// algorithm the scheduler's class cache depends on.
func (c *Client) buildNode(fp *fingerprint.Result) *structs.Node {
	cfg := c.cfg
	attrs := maps.Clone(fp.Attributes)
	if attrs == nil {
		attrs = map[string]string{}
	}
	name := cfg.Name
	if name == "" {
		name = attrs["unique.hostname"]
	}
	if name == "" {
		name = c.nodeID
	}
	reserved := cfg.Reserved
	drv := make(map[string]*structs.DriverInfo, len(fp.Drivers))
	for k, v := range fp.Drivers {
		drv[k] = v.Copy()
	}
	n := &structs.Node{
		ID: c.nodeID, SecretID: c.secretID, Name: name, Datacenter: cfg.Datacenter, NodePool: cfg.NodePool,
		NodeClass: cfg.NodeClass, HTTPAddr: cfg.HTTPAddr, TLSEnabled: cfg.HTTPTLS, Attributes: attrs, Meta: mergeMeta(cfg.Meta, c.dynamicMeta),
		NodeResources: fp.Resources.Copy(), ReservedResources: &reserved, Drivers: drv,
		Status: structs.NodeStatusReady, SchedulingEligibility: structs.NodeSchedulingEligible,
	}
	if n.Meta == nil {
		n.Meta = map[string]string{}
	}
	n.HostVolumes = c.hostVolumes()
	if len(cfg.HostNetworks) > 0 {
		n.HostNetworks = make(map[string]*structs.ClientHostNetworkConfig, len(cfg.HostNetworks))
		for name, hn := range cfg.HostNetworks {
			c := hn.Copy()
			c.Addresses = fingerprint.HostNetworkAddrs(fp.Interfaces, hn.CIDR, hn.Interface)
			n.HostNetworks[name] = c
		}
	}
	n.Canonicalize()
	return n
}
