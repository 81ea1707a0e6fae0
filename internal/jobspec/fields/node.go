package fields

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// The node table: every field of the official client's node
// (github.com/hashicorp/nomad/api.Node, what GET /v1/node/:id answers)
// that Drover fills or leaves zero, and why. Nomad's CLI reads these and
// dereferences some optional ones, so a field Drover never fills must be
// known and said. Keys are "Type.Field" as in the job table; the types
// are walked from api.Node, so a type shared with the job (NetworkResource)
// has rows here for its meaning in a node.

// Fill is what Drover does with a node field.
type Fill int

// The three fills of a node field.
const (
	// Filled: always set (non-zero) on a ready client's node;
	// TestNodeRowsFilledByADevAgent checks it against a real agent.
	Filled Fill = iota + 1
	// FilledWhenSet: filled when the node has it (a drain, a node class,
	// configured host volumes); zero otherwise, as in Nomad.
	FilledWhenSet
	// NotFilled: always zero; the note says why.
	NotFilled
)

func (f Fill) String() string {
	switch f {
	case Filled:
		return "filled"
	case FilledWhenSet:
		return "filled when set"
	case NotFilled:
		return "not filled"
	}
	return "unknown"
}

// NodeRow is one node field's fill.
type NodeRow struct {
	Key  string
	Fill Fill
	Note string // when FilledWhenSet: when; when NotFilled: why (required)
}

func filled(key string) NodeRow                  { return NodeRow{Key: key, Fill: Filled} }
func whenSet(key, when string) NodeRow           { return NodeRow{Key: key, Fill: FilledWhenSet, Note: when} }
func notFilled(key, why string) NodeRow          { return NodeRow{Key: key, Fill: NotFilled, Note: why} }
func filledNote(key, note string) NodeRow        { return NodeRow{Key: key, Fill: Filled, Note: note} }
func nodeRowKey(t reflect.Type, f string) string { return t.Name() + "." + f }

const (
	noCSI          = "Drover has no CSI plugins"
	allocNetFields = "a node's networks carry no ports, DNS, hostname or CNI args in Nomad either: those belong to allocations"
	drainOnly      = "while a drain is set, or after one (last drain)"
)

var nodeRows = []NodeRow{
	filled("Node.ID"),
	filled("Node.Datacenter"),
	filled("Node.Name"),
	filled("Node.HTTPAddr"),
	whenSet("Node.TLSEnabled", "true when the agent serves its HTTP API over TLS"),
	filled("Node.Attributes"),
	notFilled("Node.Resources", "deprecated by Nomad (removed in 1.12) in favour of NodeResources, which Drover fills"),
	notFilled("Node.Reserved", "deprecated by Nomad (removed in 1.12) in favour of ReservedResources, which Drover fills"),
	filled("Node.NodeResources"),
	filled("Node.ReservedResources"),
	whenSet("Node.Links", "links the client sets; Drover's client sets none (Nomad's come from Consul and cloud fingerprints)"),
	whenSet("Node.Meta", "client.meta and node meta set through the API"),
	whenSet("Node.NodeClass", "client.node_class"),
	filled("Node.NodePool"),
	notFilled("Node.CgroupParent", "the client does not report its cgroup parent; the exec driver's cgroups are its own concern"),
	whenSet("Node.Drain", "true while a drain is set"),
	whenSet("Node.DrainStrategy", "while a drain is set"),
	filled("Node.SchedulingEligibility"),
	filled("Node.Status"),
	whenSet("Node.StatusDescription", "when the server records why the status changed"),
	filled("Node.StatusUpdatedAt"),
	filled("Node.Events"),
	filled("Node.Drivers"),
	whenSet("Node.HostVolumes", "client host_volume blocks"),
	notFilled("Node.GCVolumesOnNodeGC", "dynamic host volumes are not supported"),
	whenSet("Node.HostNetworks", "client host_network blocks"),
	notFilled("Node.CSIControllerPlugins", noCSI),
	notFilled("Node.CSINodePlugins", noCSI),
	whenSet("Node.LastDrain", "after a drain started"),
	filled("Node.CreateIndex"),
	filled("Node.ModifyIndex"),
	notFilled("Node.NodeMaxAllocs", "client.node_max_allocs is refused: Drover does not cap allocations per node"),

	filled("NodeResources.Cpu"),
	filled("NodeResources.Memory"),
	filled("NodeResources.Disk"),
	filled("NodeResources.Networks"),
	notFilled("NodeResources.Devices", "Drover has no device plugins, so no client fingerprints devices; the scheduler honours the devices a node registration carries (structs.NodeResources.Devices), but /v1/node does not show them"),
	filled("NodeResources.MinDynamicPort"),
	filled("NodeResources.MaxDynamicPort"),
	filled("NodeCpuResources.CpuShares"),
	filled("NodeCpuResources.TotalCpuCores"),
	filled("NodeCpuResources.ReservableCpuCores"),
	filled("NodeMemoryResources.MemoryMB"),
	filled("NodeDiskResources.DiskMB"),

	filled("NetworkResource.Mode"),
	filled("NetworkResource.Device"),
	filled("NetworkResource.CIDR"),
	filled("NetworkResource.IP"),
	notFilled("NetworkResource.DNS", allocNetFields),
	notFilled("NetworkResource.ReservedPorts", allocNetFields),
	notFilled("NetworkResource.DynamicPorts", allocNetFields),
	notFilled("NetworkResource.Hostname", allocNetFields),
	filledNote("NetworkResource.MBits", "the link speed as fingerprinted (a default when the kernel does not say), as Nomad reports it"),
	notFilled("NetworkResource.CNI", allocNetFields),

	whenSet("NodeReservedResources.Cpu", "client.reserved { cpu }"),
	whenSet("NodeReservedResources.Memory", "client.reserved { memory }"),
	whenSet("NodeReservedResources.Disk", "client.reserved { disk }"),
	whenSet("NodeReservedResources.Networks", "client.reserved { reserved_ports }"),
	whenSet("NodeReservedCpuResources.CpuShares", "client.reserved { cpu }"),
	whenSet("NodeReservedMemoryResources.MemoryMB", "client.reserved { memory }"),
	whenSet("NodeReservedDiskResources.DiskMB", "client.reserved { disk }"),
	whenSet("NodeReservedNetworkResources.ReservedHostPorts", "client.reserved { reserved_ports }"),

	whenSet("DrainStrategy.DrainSpec", drainOnly),
	whenSet("DrainStrategy.ForceDeadline", "a drain with a deadline"),
	whenSet("DrainStrategy.StartedAt", drainOnly),
	whenSet("DrainSpec.Deadline", "a drain with a deadline"),
	whenSet("DrainSpec.IgnoreSystemJobs", "a drain that ignores system jobs"),
	whenSet("DrainMetadata.StartedAt", drainOnly),
	whenSet("DrainMetadata.UpdatedAt", drainOnly),
	whenSet("DrainMetadata.Status", drainOnly),
	whenSet("DrainMetadata.AccessorID", "a drain started with an ACL token"),
	whenSet("DrainMetadata.Meta", "a drain started with -meta"),

	filled("NodeEvent.Message"),
	filled("NodeEvent.Subsystem"),
	whenSet("NodeEvent.Details", "events that carry details (a drain's, a heartbeat miss's)"),
	filled("NodeEvent.Timestamp"),
	filled("NodeEvent.CreateIndex"),

	whenSet("DriverInfo.Attributes", "a detected driver's attributes (driver.raw_exec, docker's version...)"),
	whenSet("DriverInfo.Detected", "true for a driver found on the node"),
	whenSet("DriverInfo.Healthy", "true for a detected, healthy driver"),
	filled("DriverInfo.HealthDescription"),
	notFilled("DriverInfo.UpdateTime", "the client does not record when a driver's health last changed; Nomad's node status -verbose shows the zero time"),

	whenSet("HostVolumeInfo.Path", "client host_volume blocks"),
	whenSet("HostVolumeInfo.ReadOnly", "a read-only client host_volume"),
	notFilled("HostVolumeInfo.ID", "only dynamic host volumes have IDs, and they are not supported"),

	whenSet("HostNetworkInfo.Name", "client host_network blocks"),
	whenSet("HostNetworkInfo.CIDR", "a host_network with cidr"),
	whenSet("HostNetworkInfo.Interface", "a host_network with interface"),
	whenSet("HostNetworkInfo.ReservedPorts", "a host_network with reserved_ports"),
}

var nodeByKey = indexRows(nodeRows, func(r *NodeRow) string { return r.Key }, "node row")

// NodeRows returns the node table, sorted by key.
func NodeRows() []NodeRow { return sortedRows(nodeRows, func(r *NodeRow) string { return r.Key }) }

// LookupNode returns the node row for "Type.Field", or nil.
func LookupNode(key string) *NodeRow { return nodeByKey[key] }

// NodeTypes lists every api struct type reachable from api.Node through
// fields that are not NotFilled, with the path of its first occurrence.
func NodeTypes() []TypeAt {
	return reachableTypes(reflect.TypeOf(api.Node{}), func(key string) bool {
		r := nodeByKey[key]
		return r != nil && r.Fill == NotFilled
	})
}

// UnfilledNodeFields walks a node as an agent answered it and returns the
// path of every Filled field that is zero (nodeUnset: a nil pointer, an
// empty map or list; a list's elements may be zero, core 0 is a core).
// Fields beneath a FilledWhenSet field that is unset are not reached.
func UnfilledNodeFields(n *api.Node) []string {
	var out []string
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		v = deref(v)
		if !v.IsValid() || v.Kind() != reflect.Struct || v.Type() == timeType {
			return
		}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			p := strings.TrimPrefix(path+"."+f.Name, ".")
			r := nodeByKey[nodeRowKey(t, f.Name)]
			if r != nil && r.Fill == Filled && nodeUnset(fv) {
				out = append(out, p)
				continue
			}
			if r != nil && r.Fill == NotFilled {
				continue
			}
			walkInto(p, fv, walk)
		}
	}
	walk("", reflect.ValueOf(n))
	return out
}

// nodeUnset is a Filled field's zero: a nil pointer (what a reader that
// dereferences it trips on, whatever the struct it points to holds), an
// empty list or map, a zero scalar or time; a struct held by value is
// judged by its own fields.
func nodeUnset(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Struct:
		return v.Type() == timeType && v.IsZero()
	}
	return v.IsZero()
}

// walkInto descends into the structs a field holds, through pointers,
// lists and maps (keys sorted, for stable paths).
func walkInto(path string, v reflect.Value, walk func(string, reflect.Value)) {
	v = deref(v)
	switch v.Kind() {
	case reflect.Struct:
		walk(path, v)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkInto(fmt.Sprintf("%s[%d]", path, i), v.Index(i), walk)
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			walkInto(fmt.Sprintf("%s[%v]", path, k), v.MapIndex(k), walk)
		}
	}
}

// NodeReferenceMarkdown is docs/reference/node.md: every node row, by
// api type, with where the type first appears in a node.
func NodeReferenceMarkdown() string {
	var b strings.Builder
	b.WriteString("# Node reference\n\n")
	b.WriteString("<!-- Generated from internal/jobspec/fields (node.go); do not edit:\n")
	b.WriteString("     go test ./internal/jobspec/fields -run TestNodeReferenceDocIsCurrent -update -->\n\n")
	b.WriteString("Every field of the official client's node (`github.com/hashicorp/nomad/api.Node`, what\n")
	b.WriteString("`GET /v1/node/:id` answers) is in one of three states. **filled**: always set on a\n")
	b.WriteString("ready client's node (`TestNodeRowsFilledByADevAgent` checks a real agent's answer).\n")
	b.WriteString("**filled when set**: set when the node has it (a drain, a node class, host volumes),\n")
	b.WriteString("zero otherwise, as in Nomad. **not filled**: always zero, for the reason given; a tool\n")
	b.WriteString("that reads it sees the zero value (nil for pointers, maps and lists).\n")
	byType := map[string][]NodeRow{}
	for _, r := range NodeRows() {
		typ, _, _ := strings.Cut(r.Key, ".")
		byType[typ] = append(byType[typ], r)
	}
	for _, ta := range NodeTypes() {
		rows := byType[ta.Type.Name()]
		if len(rows) == 0 {
			continue
		}
		at := ta.Path
		if at == "" {
			at = "the node"
		}
		fmt.Fprintf(&b, "\n## `%s` (first at `%s`)\n\n| Field | State | Note |\n|---|---|---|\n", ta.Type.Name(), at)
		for _, r := range rows {
			_, field, _ := strings.Cut(r.Key, ".")
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", field, r.Fill, strings.ReplaceAll(r.Note, "|", "\\|"))
		}
	}
	return b.String()
}
