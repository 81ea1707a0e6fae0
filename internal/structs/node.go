package structs

import (
	"slices"
	"strings"
	"time"
)

// Node statuses.
const (
	NodeStatusInit         = "initializing"
	NodeStatusReady        = "ready"
	NodeStatusDown         = "down"
	NodeStatusDisconnected = "disconnected"
)

// Node scheduling eligibility.
const (
	NodeSchedulingEligible   = "eligible"
	NodeSchedulingIneligible = "ineligible"
)

// ValidNodeStatus reports whether s is a node status.
func ValidNodeStatus(s string) bool {
	switch s {
	case NodeStatusInit, NodeStatusReady, NodeStatusDown, NodeStatusDisconnected:
		return true
	}
	return false
}

// Node is a client machine that runs allocations.
type Node struct {
	ID         string
	SecretID   string
	Datacenter string
	Name       string
	HTTPAddr   string
	// TLSEnabled: the node's agent serves its HTTP API over TLS (clients
	// talking to it directly use https).
	TLSEnabled            bool
	NodePool              string
	NodeClass             string
	ComputedClass         string
	Attributes            map[string]string
	Meta                  map[string]string
	NodeResources         *NodeResources
	ReservedResources     *NodeReservedResources
	Drivers               map[string]*DriverInfo
	Links                 map[string]string
	Status                string
	StatusDescription     string
	StatusUpdatedAt       int64 // unix seconds
	SchedulingEligibility string
	DrainStrategy         *DrainStrategy
	LastDrain             *DrainMetadata
	Events                []*NodeEvent
	CreateIndex           uint64
	ModifyIndex           uint64
	// HostVolumes are the directories the client offers, by name.
	HostVolumes map[string]*ClientHostVolumeConfig
	// HostNetworks are the named host networks the client offers
	// (client host_network blocks), by name.
	HostNetworks map[string]*ClientHostNetworkConfig
}

// Ready reports whether the scheduler may place new work on the node.
func (n *Node) Ready() bool {
	return n.Status == NodeStatusReady && n.DrainStrategy == nil && n.SchedulingEligibility == NodeSchedulingEligible
}

// TerminalStatus reports whether the node is down.
func (n *Node) TerminalStatus() bool { return n.Status == NodeStatusDown }

// Canonicalize fills in defaults for a registering node.
func (n *Node) Canonicalize() {
	if n.NodePool == "" {
		n.NodePool = DefaultNodePool
	}
	if n.SchedulingEligibility == "" {
		if n.DrainStrategy != nil {
			n.SchedulingEligibility = NodeSchedulingIneligible
		} else {
			n.SchedulingEligibility = NodeSchedulingEligible
		}
	}
	if n.Status == "" {
		n.Status = NodeStatusInit
	}
}

// NodeResources is what a node offers.
type NodeResources struct {
	CPU            NodeCPUResources
	MemoryMB       int64
	DiskMB         int64
	Networks       []*NetworkResource
	MinDynamicPort int
	MaxDynamicPort int
	// Devices are the node's devices, grouped by vendor/type/name (what a
	// device plugin fingerprints in Nomad). Drover clients have no device
	// plugins, so only a node registered with them has any. Appended last.
	Devices []*NodeDeviceResource
}

// NodeDeviceResource is a group of like devices on a node.
type NodeDeviceResource struct {
	Vendor     string
	Type       string
	Name       string
	Instances  []*NodeDevice
	Attributes map[string]string
}

// ID is the group's "vendor/type/name".
func (d *NodeDeviceResource) ID() string { return d.Vendor + "/" + d.Type + "/" + d.Name }

// NodeDevice is one instance of a device.
type NodeDevice struct {
	ID                string
	Healthy           bool
	HealthDescription string
}

// NodeCPUResources describes a node's processor.
type NodeCPUResources struct {
	CpuShares          int64 // total MHz
	TotalCpuCores      uint16
	ReservableCpuCores []uint16
}

// NodeReservedResources is held back from scheduling (for the OS, agents).
type NodeReservedResources struct {
	CpuShares     int64
	MemoryMB      int64
	DiskMB        int64
	ReservedPorts string // e.g. "22,80,8000-8100"
}

// DriverInfo is a driver's fingerprint on a node.
type DriverInfo struct {
	Attributes        map[string]string
	Detected          bool
	Healthy           bool
	HealthDescription string
	UpdateTime        time.Time
}

// DrainStrategy describes an in-progress drain.
type DrainStrategy struct {
	Deadline         time.Duration // -1 means force, 0 means no deadline
	IgnoreSystemJobs bool
	ForceDeadline    time.Time
	StartedAt        time.Time
}

// DrainMetadata records the last drain of a node.
type DrainMetadata struct {
	StartedAt  time.Time
	UpdatedAt  time.Time
	Status     string
	AccessorID string
	Meta       map[string]string
}

// NodeEvent is a notable change in a node's history.
type NodeEvent struct {
	Message     string
	Subsystem   string
	Details     map[string]string
	Timestamp   time.Time
	CreateIndex uint64
}

// LookupVariable resolves a node variable as job files reference it
// (without "${}"): node.unique.id, node.unique.name, node.datacenter,
// node.class, node.pool, attr.<name> and meta.<name>. ok is false when the
// node does not have it. Constraints (scheduler) and task interpolation
// (client) both resolve through here, so they can never disagree.
func (n *Node) LookupVariable(name string) (string, bool) {
	switch name {
	case "node.unique.id":
		return n.ID, true
	case "node.unique.name":
		return n.Name, true
	case "node.datacenter":
		return n.Datacenter, true
	case "node.class":
		return n.NodeClass, true
	case "node.pool":
		return n.NodePool, true
	}
	if k, ok := strings.CutPrefix(name, "attr."); ok {
		v, found := n.Attributes[k]
		return v, found
	}
	if k, ok := strings.CutPrefix(name, "meta."); ok {
		v, found := n.Meta[k]
		return v, found
	}
	return "", false
}

// ClientHostNetworkConfig is one host_network the client offers: the
// addresses of CIDR or of Interface, with ReservedPorts withheld.
type ClientHostNetworkConfig struct {
	Name          string
	CIDR          string
	Interface     string
	ReservedPorts string
	// Addresses are the IPs the client found for it when it fingerprinted
	// its interfaces: those of Interface, or those of any interface inside
	// CIDR (Nomad's NodeNetworks addresses with this alias). The scheduler
	// picks a port's host IP among them; none makes the network missing.
	Addresses []string
}

// Copy returns a deep copy.
func (h *ClientHostNetworkConfig) Copy() *ClientHostNetworkConfig {
	c := copyPtr(h)
	if c != nil {
		c.Addresses = slices.Clone(h.Addresses)
	}
	return c
}
