package docker

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/client/drivers"
)

// Labels the driver puts on every container so they can be traced back.
const (
	LabelAllocID  = "com.drover.alloc_id"
	LabelTaskName = "com.drover.task_name"
)

var invalidName = regexp.MustCompile(`[^a-zA-Z0-9_.-]`)

// containerName is <task>-<alloc id>, restricted to Docker's charset.
func containerName(tc *drivers.TaskConfig) string {
	return invalidName.ReplaceAllString(tc.TaskName+"-"+tc.AllocID, "_")
}

// containerConfig turns the task into a create request. The staged volume
// mounts must stay until the container has started.
func containerConfig(tc *drivers.TaskConfig, cfg *TaskConfig, pc *PluginConfig) (*ContainerConfig, stagedVolumes, error) {
	if err := checkIsolation(cfg, pc); err != nil {
		return nil, nil, err
	}
	cc := &ContainerConfig{Image: cfg.Image, Entrypoint: cfg.Entrypoint, WorkingDir: cfg.WorkDir, Labels: map[string]string{}}
	switch {
	case cfg.Command != "":
		cc.Cmd = append([]string{cfg.Command}, cfg.Args...)
	case len(cfg.Args) > 0:
		cc.Cmd = cfg.Args // appended to the image's entrypoint
	}
	for k, v := range tc.Env {
		cc.Env = append(cc.Env, k+"="+v)
	}
	for k, v := range cfg.Labels {
		cc.Labels[k] = v
	}
	cc.Labels[LabelAllocID], cc.Labels[LabelTaskName] = tc.AllocID, tc.TaskName
	hc := &cc.HostConfig
	hc.Privileged, hc.NetworkMode, hc.PidMode, hc.IpcMode, hc.UTSMode = cfg.Privileged, cfg.NetworkMode, cfg.PidMode, cfg.IpcMode, cfg.UTSMode
	if err := publishPorts(cc, tc.Ports, cfg.Ports); err != nil {
		return nil, nil, err
	}
	applyResources(&cc.HostConfig, tc.Resources)
	binds, staged, err := binds(tc, cfg, pc)
	if err != nil {
		return nil, nil, err
	}
	cc.HostConfig.Binds = binds
	return cc, staged, nil
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

// publishPorts maps each configured label to its allocation: host
// HostIP:Value forwards to container port To, for tcp and udp alike.
func publishPorts(cc *ContainerConfig, allocated []drivers.PortMapping, labels []string) error {
	byLabel := map[string]drivers.PortMapping{}
	for _, p := range allocated {
		byLabel[p.Label] = p
	}
	for _, l := range labels {
		p, ok := byLabel[l]
		if !ok {
			return &drivers.ConfigError{Field: "ports", Reason: fmt.Sprintf("port label %q is not allocated to the task (missing from its network block)", l)}
		}
		if cc.ExposedPorts == nil {
			cc.ExposedPorts = map[string]struct{}{}
			cc.HostConfig.PortBindings = map[string][]PortBinding{}
		}
		for _, proto := range []string{"tcp", "udp"} {
			key := strconv.Itoa(p.ContainerPort()) + "/" + proto
			cc.ExposedPorts[key] = struct{}{}
			cc.HostConfig.PortBindings[key] = append(cc.HostConfig.PortBindings[key], PortBinding{HostIP: p.HostIP, HostPort: strconv.Itoa(p.Value)})
		}
	}
	return nil
}

// applyResources sets the memory limit (swap included, so the container
// cannot outgrow it into swap) and the CPU weight.
func applyResources(hc *HostConfig, r drivers.Resources) {
	if limit := r.MemoryLimitBytes(); limit > 0 {
		hc.Memory, hc.MemorySwap = limit, limit
	}
	hc.MemoryReservation = r.MemorySoftBytes()
	if r.CPUShares > 0 {
		hc.CPUShares = max(r.CPUShares, 2)
	}
}
