package client

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/drover-project/drover/internal/client/allocnet"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// networkHolder is a driver that holds an alloc's network namespace in a
// process of its own: the docker driver's pause container, which its
// containers join (the Engine joins a container only to another
// container's namespace).
type networkHolder interface {
	// CreateNetwork makes (or finds again) the alloc's holder and returns
	// the path of its network namespace.
	CreateNetwork(ctx context.Context, spec *drivers.AllocNetworkSpec) (nsPath string, err error)
	// DestroyNetwork removes the holder; none is not an error.
	DestroyNetwork(ctx context.Context, allocID string) error
}

// holderDriver is the one driver whose tasks need the namespace held for
// them.
const holderDriver = "docker"

// allocNetworks adapts allocnet to the alloc runners' Networks. A group
// with a docker task gets its namespace from the docker driver's pause
// container (bind-mounted where allocnet keeps namespaces, so the exec
// and raw_exec tasks of the alloc join it as any other).
type allocNetworks struct {
	m       *allocnet.Manager
	drivers *drivers.Registry
	// node and region interpolate the network block's hostname (nil node:
	// only the alloc's variables).
	node   func() *structs.Node
	region string
}

// hostname interpolates the network block's hostname as Nomad does: the
// alloc-level environment (NOMAD_ALLOC_ID, NOMAD_ALLOC_INDEX, job and
// group meta, ...) and the node's ${attr.*}, ${meta.*} and ${node.*}.
// Unknown references stay as written, as everywhere in interpolation.
func (n allocNetworks) hostname(a *structs.Allocation, h string) string {
	if !strings.Contains(h, "${") {
		return h
	}
	var node *structs.Node
	if n.node != nil {
		node = n.node()
	}
	return taskrunner.NewInterpolator(taskrunner.AllocEnv(a, node, n.region), node, n.region).String(h)
}

// holder is the docker driver when it is loaded.
func (n allocNetworks) holder() networkHolder {
	if n.drivers == nil {
		return nil
	}
	d, err := n.drivers.Get(holderDriver)
	if err != nil {
		return nil
	}
	h, _ := d.(networkHolder)
	return h
}

func (n allocNetworks) Setup(ctx context.Context, a *structs.Allocation, dir string) (*drivers.NetworkIsolation, *structs.AllocNetworkStatus, bool, error) {
	req, ok := allocnet.RequestFor(a, dir)
	if !ok {
		return nil, nil, false, nil
	}
	req.Hostname = n.hostname(a, req.Hostname)
	var h networkHolder
	if groupUses(a, holderDriver) {
		if h = n.holder(); h == nil {
			return nil, nil, true, networkError("the group's docker tasks need the docker driver to hold its network namespace, and it is not loaded on this client")
		}
		spec := &drivers.AllocNetworkSpec{AllocID: a.ID, AllocDir: dir, Hostname: req.Hostname}
		if req.DNS != nil {
			spec.DNSServers, spec.DNSSearches, spec.DNSOptions = req.DNS.Servers, req.DNS.Searches, req.DNS.Options
		}
		path, err := h.CreateNetwork(ctx, spec)
		if err != nil {
			return nil, nil, true, err
		}
		req.NetNSFrom = path
	}
	st, err := n.m.Setup(ctx, req)
	if err != nil {
		if h != nil {
			_ = h.DestroyNetwork(context.WithoutCancel(ctx), a.ID)
		}
		return nil, nil, true, err
	}
	iso := &drivers.NetworkIsolation{Mode: req.Mode, NetNSPath: st.NetNSPath, Address: st.Address, Hostname: st.Hostname,
		ResolvConfPath: st.ResolvConfPath, HostsPath: st.HostsPath, HostnamePath: st.HostnamePath}
	status := &structs.AllocNetworkStatus{InterfaceName: st.InterfaceName, Address: st.Address, AddressIPv6: st.AddressIPv6, DNS: st.DNS.Copy()}
	return iso, status, true, nil
}

// Teardown runs the CNI DEL and unmounts the namespace, then removes its
// holder, if any.
func (n allocNetworks) Teardown(ctx context.Context, allocID string) error {
	held := n.m.Held(allocID)
	err := n.m.Teardown(ctx, allocID)
	if h := n.holder(); h != nil && held {
		err = errors.Join(err, h.DestroyNetwork(ctx, allocID))
	}
	return err
}

// groupUses reports whether a task of the alloc's group runs on driver.
func groupUses(a *structs.Allocation, driver string) bool {
	tg := a.Group()
	if tg == nil {
		return false
	}
	for _, t := range tg.Tasks {
		if t != nil && t.Driver == driver {
			return true
		}
	}
	return false
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
	c.networks = allocNetworks{m: c.netManager, drivers: c.drivers, node: c.Node, region: c.cfg.Region}
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
	var gone []string
	for _, id := range c.netManager.Recorded() {
		if !keep[id] && c.netManager.Held(id) {
			gone = append(gone, id)
		}
	}
	if err := c.netManager.Sweep(c.ctx, func(id string) bool { return keep[id] }); err != nil {
		c.logger.Warn("tearing down networks of gone allocs", "error", err)
	}
	// Their pause containers go too.
	if h := (allocNetworks{drivers: c.drivers}).holder(); h != nil {
		for _, id := range gone {
			if err := h.DestroyNetwork(c.ctx, id); err != nil {
				c.logger.Warn("removing the pause container of a gone alloc", "alloc_id", id, "error", err)
			}
		}
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
