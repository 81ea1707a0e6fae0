// Package allocnet gives an allocation its own network namespace, as
// Nomad's clients do for `network { mode = "bridge" }`, `mode = "cni/NAME"`
// and `mode = "none"`.
//
// One namespace per allocation, named after the alloc ID and bind-mounted
// under /var/run/netns (so `ip netns` lists it), is shared by all the
// alloc's tasks: raw_exec and exec start their processes inside it
// (Isolation.NetNSPath, joined by setns on a locked thread before the
// fork), docker containers join it (see the drivers' NetworkIsolation).
//
// The namespace is wired by the reference CNI plugins through libcni
// (github.com/containernetworking/cni), never by hand-written bridge or
// iptables code:
//
//   - bridge: a network list Drover generates (bridgeConfList): loopback,
//     bridge (the "nomad" bridge, host-local IPAM on the client's
//     bridge_network_subnet, default 172.26.64.0/20, masquerade), firewall
//     and portmap, which maps each of the group's ports (host port ->
//     `to`) through the portMappings capability.
//   - cni/NAME: the network list NAME from the client's cni_config_dir;
//     the group's `cni { args }` are passed as CNI_ARGS, port mappings as
//     the portMappings capability.
//   - none: the namespace with only its loopback up (the loopback plugin).
//
// The plugins are looked up in the client's cni_path (default
// /opt/cni/bin, then Debian's /usr/lib/cni); Fingerprint reports which
// exist, as `plugins.cni.version.NAME` node attributes, so the scheduler
// only places such groups on nodes that have them.
//
// What each ADD used (the network list and the runtime config) is
// recorded in StateDir/<alloc>.json before the plugins run, so that the
// DEL at teardown sends the plugins exactly what the ADD did, also after a
// client restart, and Sweep can tear down the networks of allocs the
// client no longer has. Setup on a namespace that already exists (a
// restarted client re-attaching to a running alloc) returns the recorded
// status without a new ADD.
//
// The group's `dns` block and `hostname` become the alloc's resolv.conf
// and hosts/hostname files (Isolation.ResolvConfPath, HostsPath,
// Hostname), which the isolating drivers bind in place of the host's.
package allocnet
