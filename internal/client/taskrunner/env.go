package taskrunner

import (
	"maps"
	"net"
	"strconv"
	"strings"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// EnvInputs is everything a task's environment is built from.
type EnvInputs struct {
	Alloc   *structs.Allocation
	Task    *structs.Task
	Group   *structs.TaskGroup
	Node    *structs.Node
	Region  string
	TaskDir drivers.TaskDir
	// Network is the alloc's own network namespace (nil: the host's).
	Network *drivers.NetworkIsolation
}

// isolatedDrivers see the alloc, local and secrets dirs at fixed paths
// inside their root (/alloc, /local, /secrets); others see host paths.
var isolatedDrivers = map[string]bool{"exec": true, "docker": true}

// BuildEnv returns the task's environment: the NOMAD_* variables, then the
// task's own env block interpolated against them (a task may not override
// what the client sets, as in Nomad, except through its env block).
func BuildEnv(in EnvInputs) map[string]string {
	env := nomadEnv(in)
	ip := NewInterpolator(env, in.Node, in.Region)
	for k, v := range in.Task.Env {
		env[ip.String(k)] = ip.String(v)
	}
	return env
}

func nomadEnv(in EnvInputs) map[string]string {
	a, t := in.Alloc, in.Task
	env := allocEnv(a, in.Node, in.Region)
	env["NOMAD_TASK_NAME"] = t.Name
	addDirs(env, in)
	addResources(env, a, t)
	addPorts(env, Ports(a, t.Name), in.Network)
	addMeta(env, in)
	return env
}

// AllocEnv is the environment of the alloc as a whole, without a task:
// what Nomad interpolates group-level fields with (the network block's
// hostname): the alloc, job, group, namespace, region and datacenter
// variables and the job's and group's meta as NOMAD_META_*.
func AllocEnv(a *structs.Allocation, node *structs.Node, region string) map[string]string {
	env := allocEnv(a, node, region)
	meta := map[string]string{}
	if a.Job != nil {
		maps.Copy(meta, a.Job.Meta)
	}
	if tg := a.Group(); tg != nil {
		maps.Copy(meta, tg.Meta)
	}
	for k, v := range meta {
		env["NOMAD_META_"+envKey(k)] = v
		env["NOMAD_META_"+strings.ToUpper(envKey(k))] = v
	}
	return env
}

func allocEnv(a *structs.Allocation, node *structs.Node, region string) map[string]string {
	env := map[string]string{
		"NOMAD_ALLOC_ID":       a.ID,
		"NOMAD_SHORT_ALLOC_ID": shortID(a.ID),
		"NOMAD_ALLOC_NAME":     a.Name,
		"NOMAD_ALLOC_INDEX":    strconv.FormatUint(uint64(a.Index()), 10),
		"NOMAD_GROUP_NAME":     a.TaskGroup,
		"NOMAD_NAMESPACE":      a.Namespace,
		"NOMAD_REGION":         region,
	}
	if node != nil {
		env["NOMAD_DC"] = node.Datacenter
	}
	if j := a.Job; j != nil {
		env["NOMAD_JOB_ID"], env["NOMAD_JOB_NAME"] = j.ID, j.Name
		if j.ParentID != "" {
			env["NOMAD_JOB_PARENT_ID"] = j.ParentID
		}
		if j.Region != "" {
			env["NOMAD_REGION"] = j.Region
		}
	}
	return env
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

func addDirs(env map[string]string, in EnvInputs) {
	if isolatedDrivers[in.Task.Driver] {
		env["NOMAD_ALLOC_DIR"], env["NOMAD_TASK_DIR"], env["NOMAD_SECRETS_DIR"] = "/alloc", "/local", "/secrets"
		return
	}
	env["NOMAD_ALLOC_DIR"], env["NOMAD_TASK_DIR"], env["NOMAD_SECRETS_DIR"] = in.TaskDir.AllocDir, in.TaskDir.LocalDir, in.TaskDir.SecretsDir
}

// addResources prefers what the scheduler granted over what was asked.
func addResources(env map[string]string, a *structs.Allocation, t *structs.Task) {
	var cpu, mem, memMax int64
	if t.Resources != nil {
		cpu, mem, memMax = int64(t.Resources.CPU), int64(t.Resources.MemoryMB), int64(t.Resources.MemoryMaxMB)
	}
	if a.AllocatedResources != nil {
		if tr := a.AllocatedResources.Tasks[t.Name]; tr != nil {
			cpu, mem, memMax = tr.CpuShares, tr.MemoryMB, tr.MemoryMaxMB
			if n := len(tr.ReservedCores); n > 0 {
				env["NOMAD_CPU_CORES"] = joinCores(tr.ReservedCores)
			}
		}
	}
	env["NOMAD_CPU_LIMIT"] = strconv.FormatInt(cpu, 10)
	env["NOMAD_MEMORY_LIMIT"] = strconv.FormatInt(mem, 10)
	if memMax > mem {
		env["NOMAD_MEMORY_MAX_LIMIT"] = strconv.FormatInt(memMax, 10)
	}
}

func joinCores(cores []uint16) string {
	parts := make([]string, len(cores))
	for i, c := range cores {
		parts[i] = strconv.Itoa(int(c))
	}
	return strings.Join(parts, ",")
}

// addPorts sets each port's variables: NOMAD_HOST_* where the host
// listens, NOMAD_ALLOC_* where the task does (in its alloc's namespace in
// bridge and CNI modes, the host otherwise), NOMAD_PORT_ and NOMAD_IP_ as
// Nomad.
func addPorts(env map[string]string, ports []drivers.PortMapping, n *drivers.NetworkIsolation) {
	for _, p := range ports {
		l := envKey(p.Label)
		host := strconv.Itoa(p.Value)
		allocIP := p.HostIP
		if n != nil && n.Address != "" {
			allocIP = n.Address
		}
		env["NOMAD_ALLOC_IP_"+l] = allocIP
		env["NOMAD_ALLOC_ADDR_"+l] = net.JoinHostPort(allocIP, strconv.Itoa(p.ContainerPort()))
		env["NOMAD_PORT_"+l] = strconv.Itoa(p.ContainerPort())
		env["NOMAD_HOST_PORT_"+l] = host
		env["NOMAD_ALLOC_PORT_"+l] = strconv.Itoa(p.ContainerPort())
		env["NOMAD_IP_"+l] = p.HostIP
		env["NOMAD_HOST_IP_"+l] = p.HostIP
		env["NOMAD_ADDR_"+l] = net.JoinHostPort(p.HostIP, host)
		env["NOMAD_HOST_ADDR_"+l] = net.JoinHostPort(p.HostIP, host)
	}
}

// addMeta merges job, group and task meta (the most specific wins) and
// sets each key both as written and upper-cased, as Nomad does.
func addMeta(env map[string]string, in EnvInputs) {
	meta := map[string]string{}
	if in.Alloc.Job != nil {
		maps.Copy(meta, in.Alloc.Job.Meta)
	}
	if in.Group != nil {
		maps.Copy(meta, in.Group.Meta)
	}
	maps.Copy(meta, in.Task.Meta)
	for k, v := range meta {
		env["NOMAD_META_"+envKey(k)] = v
		env["NOMAD_META_"+strings.ToUpper(envKey(k))] = v
	}
}

// envKey replaces what may not appear in a variable name with '_'.
func envKey(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}
