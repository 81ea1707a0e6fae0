package docker

import (
	"bufio"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
)

// Labels the driver puts on every container so they can be traced back.
const (
	LabelAllocID  = "com.drover.alloc_id"
	LabelTaskName = "com.drover.task_name"
	labelPrefix   = "com.drover."
)

var invalidName = regexp.MustCompile(`[^a-zA-Z0-9_.-]`)

// containerName is <task>-<alloc id>, restricted to Docker's charset.
func containerName(tc *drivers.TaskConfig) string {
	return invalidName.ReplaceAllString(tc.TaskName+"-"+tc.AllocID, "_")
}

// createSpec is everything ContainerCreate takes.
type createSpec struct {
	Config     *container.Config
	HostConfig *container.HostConfig
	Networking *network.NetworkingConfig
}

// containerConfig turns the task into a create request. The staged volume
// mounts must stay until the container has started.
func containerConfig(tc *drivers.TaskConfig, cfg *TaskConfig, pc *PluginConfig) (_ *createSpec, staged stagedVolumes, err error) {
	defer func() {
		if err != nil {
			staged.Close()
		}
	}()
	if err := checkIsolation(cfg, pc); err != nil {
		return nil, nil, err
	}
	cc := &container.Config{
		Image: cfg.Image, Entrypoint: cfg.Entrypoint, WorkingDir: cfg.WorkDir, Labels: map[string]string{},
		Hostname: cfg.Hostname, Tty: cfg.TTY, OpenStdin: cfg.Interactive, AttachStdin: cfg.Interactive,
	}
	switch {
	case cfg.Command != "":
		cc.Cmd = append([]string{cfg.Command}, cfg.Args...)
	case len(cfg.Args) > 0:
		cc.Cmd = cfg.Args // appended to the image's entrypoint
	}
	for k, v := range tc.Env {
		cc.Env = append(cc.Env, k+"="+v)
	}
	slices.Sort(cc.Env)
	for k, v := range cfg.Labels {
		cc.Labels[k] = v
	}
	for k, v := range extraLabelValues(tc, pc.ExtraLabels) {
		cc.Labels[k] = v
	}
	cc.Labels[LabelAllocID], cc.Labels[LabelTaskName] = tc.AllocID, tc.TaskName
	if tc.TaskDir.AllocDir != "" {
		cc.Labels[LabelAllocDir] = tc.TaskDir.AllocDir
	}
	if cfg.Healthchecks.Disable {
		cc.Healthcheck = &container.HealthConfig{Test: []string{"NONE"}}
	}
	hc := &container.HostConfig{
		Privileged: cfg.Privileged, NetworkMode: container.NetworkMode(cfg.NetworkMode),
		PidMode: container.PidMode(cfg.PidMode), IpcMode: container.IpcMode(cfg.IpcMode), UTSMode: container.UTSMode(cfg.UTSMode),
		UsernsMode: container.UsernsMode(cfg.UsernsMode), CgroupnsMode: container.CgroupnsMode(cfg.CgroupnsMode),
		CapAdd: cfg.CapAdd, CapDrop: cfg.CapDrop, SecurityOpt: cfg.SecurityOpt, Runtime: cfg.Runtime,
		ReadonlyRootfs: cfg.ReadonlyRootfs, GroupAdd: cfg.GroupAdd, Sysctls: cfg.Sysctl, StorageOpt: cfg.StorageOpt,
		ShmSize: cfg.ShmSize, OomScoreAdj: cfg.OOMScoreAdj, ExtraHosts: cfg.ExtraHosts,
		DNSSearch: cfg.DNSSearchDomains, DNSOptions: cfg.DNSOptions, VolumeDriver: cfg.VolumeDriver,
		LogConfig: container.LogConfig{Type: cfg.Logging.Type, Config: cfg.Logging.Config},
	}
	if cfg.Init {
		hc.Init = &cfg.Init
	}
	for _, s := range cfg.DNSServers {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, nil, &drivers.ConfigError{Field: "dns_servers", Reason: fmt.Sprintf("%q is not an IP address", s)}
		}
		hc.DNS = append(hc.DNS, a)
	}
	if err := ulimits(hc, cfg.Ulimit); err != nil {
		return nil, nil, err
	}
	for _, d := range cfg.Devices {
		m := container.DeviceMapping{PathOnHost: d.HostPath, PathInContainer: d.ContainerPath, CgroupPermissions: d.CgroupPermissions}
		if m.PathInContainer == "" {
			m.PathInContainer = d.HostPath
		}
		if m.CgroupPermissions == "" {
			m.CgroupPermissions = "rwm"
		}
		hc.Devices = append(hc.Devices, m)
	}
	if err := publishPorts(cc, hc, tc.Ports, cfg.Ports, cfg.PortMap); err != nil {
		return nil, nil, err
	}
	applyResources(hc, tc.Resources, cfg)
	spec := &createSpec{Config: cc, HostConfig: hc}
	if spec.Networking, err = endpoint(cfg); err != nil {
		return nil, nil, err
	}
	if hc.Binds, staged, err = binds(tc, cfg, pc); err != nil {
		return nil, nil, err
	}
	var more stagedVolumes
	hc.Mounts, more, err = mounts(tc, cfg, pc)
	staged = append(staged, more...)
	if err != nil {
		return nil, staged, err
	}
	return spec, staged, nil
}

// endpoint sets the aliases and static addresses a user-defined network
// takes; Docker's default networks take none of them.
func endpoint(cfg *TaskConfig) (*network.NetworkingConfig, error) {
	if len(cfg.NetworkAliases) == 0 && cfg.IPv4Address == "" && cfg.MacAddress == "" {
		return nil, nil
	}
	es := &network.EndpointSettings{Aliases: cfg.NetworkAliases}
	if cfg.IPv4Address != "" {
		a, err := netip.ParseAddr(cfg.IPv4Address)
		if err != nil || !a.Is4() {
			return nil, &drivers.ConfigError{Field: "ipv4_address", Reason: fmt.Sprintf("%q is not an IPv4 address", cfg.IPv4Address)}
		}
		es.IPAMConfig = &network.EndpointIPAMConfig{IPv4Address: a}
	}
	if cfg.MacAddress != "" {
		mac, err := net.ParseMAC(cfg.MacAddress)
		if err != nil {
			return nil, &drivers.ConfigError{Field: "mac_address", Reason: fmt.Sprintf("%q is not a MAC address", cfg.MacAddress)}
		}
		es.MacAddress = network.HardwareAddr(mac)
	}
	mode := cfg.NetworkMode
	switch {
	case len(cfg.NetworkAliases) > 0 || cfg.IPv4Address != "":
		if mode == "" || mode == "bridge" || mode == "default" || mode == "host" || mode == "none" || strings.HasPrefix(mode, "container:") {
			field := "network_aliases"
			if len(cfg.NetworkAliases) == 0 {
				field = "ipv4_address"
			}
			return nil, &drivers.ConfigError{Field: field, Reason: "needs network_mode naming a user-defined Docker network"}
		}
	case mode == "":
		mode = "bridge"
	}
	return &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{mode: es}}, nil
}

// ulimits turns name = "soft[:hard]" into Docker's ulimits.
func ulimits(hc *container.HostConfig, in map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(in)) {
		soft, hard, err := parseUlimit(in[name])
		if err != nil {
			return &drivers.ConfigError{Field: "ulimit", Reason: fmt.Sprintf("%s: %v", name, err)}
		}
		hc.Ulimits = append(hc.Ulimits, &container.Ulimit{Name: name, Soft: soft, Hard: hard})
	}
	return nil
}

func parseUlimit(v string) (soft, hard int64, err error) {
	if strings.Contains(v, "${") {
		return 0, 0, nil // interpolated on the client
	}
	s, h, two := strings.Cut(v, ":")
	if soft, err = strconv.ParseInt(s, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("%q is not soft[:hard]", v)
	}
	hard = soft
	if two {
		if hard, err = strconv.ParseInt(h, 10, 64); err != nil || hard < soft {
			return 0, 0, fmt.Errorf("%q is not soft[:hard] with hard >= soft", v)
		}
	}
	return soft, hard, nil
}

// extraLabelPrefix is Nomad's prefix for extra_labels, kept so tooling
// that reads Nomad's container labels reads Drover's.
const extraLabelPrefix = "com.hashicorp.nomad."

// extraLabelNames are the task facts the plugin's extra_labels may name
// (Nomad's node_id and node_name are not known to the driver and are
// refused in the plugin config).
var extraLabelNames = []string{"alloc_id", "job_id", "job_name", "namespace", "task_group_name", "task_name"}

// extraLabelValues labels the container with the facts extra_labels
// names (globs allowed).
func extraLabelValues(tc *drivers.TaskConfig, patterns []string) map[string]string {
	facts := map[string]string{
		"alloc_id": tc.AllocID, "job_name": tc.JobName, "task_name": tc.TaskName,
		"job_id": tc.Env["NOMAD_JOB_ID"], "namespace": tc.Env["NOMAD_NAMESPACE"], "task_group_name": tc.Env["NOMAD_GROUP_NAME"],
	}
	out := map[string]string{}
	for name, v := range facts {
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok && v != "" {
				out[extraLabelPrefix+name] = v
			}
		}
	}
	return out
}

// binds mounts the task's dirs where Nomad tasks expect them, then the
// configured volumes (see volumeSource), whose staging dirs it returns.
func binds(tc *drivers.TaskConfig, cfg *TaskConfig, pc *PluginConfig) (out []string, staged stagedVolumes, err error) {
	defer func() {
		if err != nil {
			staged.Close()
		}
	}()
	for _, b := range [][2]string{{tc.TaskDir.AllocDir, "/alloc"}, {tc.TaskDir.LocalDir, "/local"}, {tc.TaskDir.SecretsDir, "/secrets"}} {
		if b[0] != "" {
			out = append(out, b[0]+":"+b[1])
		}
	}
	for _, v := range cfg.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || !filepath.IsAbs(parts[1]) {
			return nil, staged, &drivers.ConfigError{Field: "volumes", Reason: fmt.Sprintf("%q is not host:container[:mode] with an absolute container path", v)}
		}
		if cfg.VolumeDriver != "" && !filepath.IsAbs(parts[0]) {
			// A named volume of the volume driver.
			if !pc.Volumes.Enabled {
				return nil, staged, &drivers.ConfigError{Field: "volume_driver", Reason: `volume drivers are disabled on this client (plugin "docker" { config { volumes { enabled = true } } })`}
			}
			out = append(out, v)
			continue
		}
		src, staging, err := volumeSource(tc, parts[0], pc.Volumes.Enabled)
		if err != nil {
			return nil, staged, &drivers.ConfigError{Field: "volumes", Reason: fmt.Sprintf("%q: %v", v, err)}
		}
		if staging != "" {
			staged = append(staged, staging)
		}
		parts[0] = src
		out = append(out, strings.Join(parts, ":"))
	}
	for _, m := range tc.Mounts {
		b := m.HostPath + ":" + m.TaskPath
		if m.ReadOnly {
			b += ":ro"
		}
		out = append(out, b)
	}
	return out, staged, nil
}

// mounts turns the mount blocks into Docker mounts: a bind's source goes
// through the same checks as volumes, a volume with a driver needs
// volumes { enabled }, a tmpfs takes its size and mode.
func mounts(tc *drivers.TaskConfig, cfg *TaskConfig, pc *PluginConfig) (out []mount.Mount, staged stagedVolumes, err error) {
	for i, m := range cfg.Mounts {
		dm := mount.Mount{Target: m.Target, ReadOnly: m.Readonly}
		switch m.Type {
		case "", "bind":
			src, staging, err := volumeSource(tc, m.Source, pc.Volumes.Enabled)
			if err != nil {
				return nil, staged, &drivers.ConfigError{Field: "mount", Reason: fmt.Sprintf("block %d: %v", i, err)}
			}
			if staging != "" {
				staged = append(staged, staging)
			}
			dm.Type, dm.Source = mount.TypeBind, src
			if p := m.BindOptions.Propagation; p != "" {
				dm.BindOptions = &mount.BindOptions{Propagation: mount.Propagation(p)}
			}
		case "volume":
			dm.Type, dm.Source = mount.TypeVolume, m.Source
			vo := m.VolumeOptions
			if vo.DriverConfig.Name != "" && !pc.Volumes.Enabled {
				return nil, staged, &drivers.ConfigError{Field: "mount", Reason: fmt.Sprintf(`block %d: volume drivers are disabled on this client (plugin "docker" { config { volumes { enabled = true } } })`, i)}
			}
			if vo.NoCopy || len(vo.Labels) > 0 || vo.DriverConfig.Name != "" {
				dm.VolumeOptions = &mount.VolumeOptions{NoCopy: vo.NoCopy, Labels: vo.Labels}
				if vo.DriverConfig.Name != "" {
					dm.VolumeOptions.DriverConfig = &mount.Driver{Name: vo.DriverConfig.Name, Options: vo.DriverConfig.Options}
				}
			}
		case "tmpfs":
			dm.Type = mount.TypeTmpfs
			to := m.TmpfsOptions
			if to.Size != 0 || to.Mode != 0 {
				dm.TmpfsOptions = &mount.TmpfsOptions{SizeBytes: to.Size}
				if to.Mode != 0 {
					mode, _ := strconv.ParseUint(strconv.FormatInt(to.Mode, 10), 8, 32)
					dm.TmpfsOptions.Mode = os.FileMode(mode)
				}
			}
		}
		out = append(out, dm)
	}
	return out, staged, nil
}

// publishPorts maps each configured label to its allocation: host
// HostIP:Value forwards to the container port (port_map's, else the
// port's to), for tcp and udp alike.
func publishPorts(cc *container.Config, hc *container.HostConfig, allocated []drivers.PortMapping, labels []string, portMap map[string]int) error {
	byLabel := map[string]drivers.PortMapping{}
	for _, p := range allocated {
		byLabel[p.Label] = p
	}
	all := slices.Clone(labels)
	for _, l := range slices.Sorted(maps.Keys(portMap)) {
		if !slices.Contains(all, l) {
			all = append(all, l)
		}
	}
	for _, l := range all {
		p, ok := byLabel[l]
		if !ok {
			field := "ports"
			if !slices.Contains(labels, l) {
				field = "port_map"
			}
			return &drivers.ConfigError{Field: field, Reason: fmt.Sprintf("port label %q is not allocated to the task (missing from its network block)", l)}
		}
		if cc.ExposedPorts == nil {
			cc.ExposedPorts = network.PortSet{}
			hc.PortBindings = network.PortMap{}
		}
		to := p.ContainerPort()
		if n, ok := portMap[l]; ok {
			to = n
		}
		var hostIP netip.Addr
		if p.HostIP != "" {
			a, err := netip.ParseAddr(p.HostIP)
			if err != nil {
				return fmt.Errorf("port %q: host address %q: %w", l, p.HostIP, err)
			}
			hostIP = a
		}
		for _, proto := range []network.IPProtocol{network.TCP, network.UDP} {
			key, _ := network.PortFrom(uint16(to), proto)
			cc.ExposedPorts[key] = struct{}{}
			hc.PortBindings[key] = append(hc.PortBindings[key], network.PortBinding{HostIP: hostIP, HostPort: strconv.Itoa(p.Value)})
		}
	}
	return nil
}

// applyResources sets the memory limit (swap included, so the container
// cannot outgrow it into swap), the CPU weight, the CFS quota under
// cpu_hard_limit, and the reserved cores.
func applyResources(hc *container.HostConfig, r drivers.Resources, cfg *TaskConfig) {
	if limit := r.MemoryLimitBytes(); limit > 0 {
		hc.Memory, hc.MemorySwap = limit, limit
	}
	hc.MemoryReservation = r.MemorySoftBytes()
	if cfg.MemoryHardLimit > 0 {
		hc.Memory, hc.MemorySwap = cfg.MemoryHardLimit<<20, cfg.MemoryHardLimit<<20
		hc.MemoryReservation = r.MemoryMB << 20
	}
	if r.CPUShares > 0 {
		hc.CPUShares = max(r.CPUShares, 2)
	}
	if cfg.CPUHardLimit && r.CPUShares > 0 {
		period := cfg.CPUCFSPeriod
		if period <= 0 {
			period = 100000
		}
		hc.CPUPeriod = period
		hc.CPUQuota = max(r.CPUShares*period/mhzPerCore(), 1000)
	}
	if len(r.CoreIDs) > 0 {
		ids := make([]string, len(r.CoreIDs))
		for i, c := range r.CoreIDs {
			ids[i] = strconv.Itoa(int(c))
		}
		hc.CpusetCpus = strings.Join(ids, ",")
	}
	if cfg.PidsLimit > 0 {
		hc.PidsLimit = &cfg.PidsLimit
	}
}

// mhzPerCore is one core's clock, which turns resources.cpu (MHz) into
// a share of cores for cpu_hard_limit: the first "cpu MHz" of
// /proc/cpuinfo, 1000 when it publishes none (as the client's CPU
// fingerprint, whose cpu_total_compute override the driver cannot see).
func mhzPerCore() int64 {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 1000
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "cpu MHz" {
			if mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && mhz > 0 {
				return int64(mhz)
			}
		}
	}
	return 1000
}
