package client

import (
	"context"
	"os"
	"path/filepath"

	"github.com/drover-project/drover/internal/client/allocnet"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// allocNetworks adapts allocnet to the alloc runners' Networks.
type allocNetworks struct{ m *allocnet.Manager }

func (n allocNetworks) Setup(ctx context.Context, a *structs.Allocation, dir string) (*drivers.NetworkIsolation, *structs.AllocNetworkStatus, bool, error) {
	req, ok := allocnet.RequestFor(a, dir)
	if !ok {
		return nil, nil, false, nil
	}
	st, err := n.m.Setup(ctx, req)
	if err != nil {
		return nil, nil, true, err
	}
	iso := &drivers.NetworkIsolation{Mode: req.Mode, NetNSPath: st.NetNSPath, Address: st.Address, Hostname: st.Hostname,
		ResolvConfPath: st.ResolvConfPath, HostsPath: st.HostsPath, HostnamePath: st.HostnamePath}
	status := &structs.AllocNetworkStatus{InterfaceName: st.InterfaceName, Address: st.Address, AddressIPv6: st.AddressIPv6, DNS: st.DNS.Copy()}
	return iso, status, true, nil
}

func (n allocNetworks) Teardown(ctx context.Context, allocID string) error {
	return n.m.Teardown(ctx, allocID)
}

// noNetworks refuses every alloc that needs a namespace: a client that
// cannot make one (not root) must not run a bridge group on the host's
// network. The scheduler does not place such groups here (no CNI plugin
// is fingerprinted), so this only meets allocs placed before.
type noNetworks struct{}

func (noNetworks) Setup(_ context.Context, a *structs.Allocation, _ string) (*drivers.NetworkIsolation, *structs.AllocNetworkStatus, bool, error) {
	if _, ok := allocnet.RequestFor(a, ""); ok {
		return nil, nil, true, errNoNetworks
	}
	return nil, nil, false, nil
}

func (noNetworks) Teardown(context.Context, string) error { return nil }

type networkError string

func (e networkError) Error() string { return string(e) }

const errNoNetworks = networkError("this client cannot create network namespaces (it does not run as root)")

// cniConfig is the client's CNI settings for allocnet.
func (c *Client) cniConfig() allocnet.Config {
	return allocnet.Config{CNIPath: c.cfg.CNIPath, CNIConfigDir: c.cfg.CNIConfigDir, BridgeSubnet: c.cfg.BridgeNetworkSubnet,
		StateDir: filepath.Join(c.cfg.StateDir, "cni"), Logger: c.logger}
}

// buildNetworks picks the alloc runners' Networks: allocnet when this
// client runs as root, else one that refuses namespaces.
func (c *Client) buildNetworks() {
	if c.cfg.Networks != nil {
		c.networks = c.cfg.Networks
		return
	}
	if os.Geteuid() != 0 {
		c.networks = noNetworks{}
		return
	}
	c.netManager = allocnet.New(c.cniConfig())
	c.networks = allocNetworks{c.netManager}
}

// sweepNetworks tears down the namespaces of allocs the client no longer
// has (they ended while it was down).
func (c *Client) sweepNetworks() {
	if c.netManager == nil {
		return
	}
	c.mu.Lock()
	keep := make(map[string]bool, len(c.runners))
	for id := range c.runners {
		keep[id] = true
	}
	c.mu.Unlock()
	if err := c.netManager.Sweep(c.ctx, func(id string) bool { return keep[id] }); err != nil {
		c.logger.Warn("tearing down networks of gone allocs", "error", err)
	}
}

// cniAttributes are the CNI plugins and networks this client offers, as
// node attributes (plugins.cni.version.NAME, plugins.cni.config.NAME);
// none unless it can make namespaces.
func (c *Client) cniAttributes(ctx context.Context) map[string]string {
	if c.netManager == nil {
		return nil
	}
	return allocnet.Fingerprint(ctx, c.cniConfig())
}
