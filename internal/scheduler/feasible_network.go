package scheduler

import (
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// FilterCNIPlugin is the reason prefix of a node lacking a CNI plugin a
// group's network mode runs (the plugin's name follows it);
// FilterCNINetwork of one lacking the named network of a cni/NAME mode.
const (
	FilterCNIPlugin  = "missing CNI plugin"
	FilterCNINetwork = "missing CNI network"
)

// networkModeNeeds is, per group network mode, the node attributes a node
// must have and the reason naming what it lacks: the reference plugins
// bridge mode runs, the loopback plugin of none mode. A cni/NAME mode
// needs the network list NAME (networkNeeds).
var networkModeNeeds = map[string][]string{
	structs.NetworkModeBridge: {"bridge", "firewall", "host-local", "loopback", "portmap"},
	structs.NetworkModeNone:   {"loopback"},
}

// cniAttrPlugin and cniAttrConfig prefix the attributes the client
// fingerprints (internal/client/allocnet).
const (
	cniAttrPlugin = "plugins.cni.version."
	cniAttrConfig = "plugins.cni.config."
)

// networkNeeds returns the attributes a group's network mode needs, each
// with the reason a node without it is filtered for.
func networkNeeds(tg *structs.TaskGroup) [][2]string {
	if len(tg.Networks) == 0 || tg.Networks[0] == nil {
		return nil
	}
	mode := tg.Networks[0].Mode
	var out [][2]string
	for _, p := range networkModeNeeds[mode] {
		out = append(out, [2]string{cniAttrPlugin + p, FilterCNIPlugin + ": " + p})
	}
	if name, ok := strings.CutPrefix(mode, structs.NetworkModeCNI); ok {
		out = append(out, [2]string{cniAttrConfig + name, FilterCNINetwork + ": " + name})
	}
	return out
}

// networkFilter keeps nodes that can make the group's network. It only
// reads attributes, which are part of the computed class.
func networkFilter(needs [][2]string) nodeFilter {
	return filterFunc(func(n *structs.Node) (bool, string) {
		for _, need := range needs {
			if _, ok := n.Attributes[need[0]]; !ok {
				return false, need[1]
			}
		}
		return true, ""
	})
}
