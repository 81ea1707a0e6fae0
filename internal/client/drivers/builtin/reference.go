package builtin

import (
	"fmt"
	"slices"
	"strings"
)

// nomadOptions are the task config keys Nomad documents for the drivers
// Drover also ships (its driver pages), used only for
// docs/reference/drivers.md: a key here that Drover's schema lacks is
// refused at register, plan and validate as an unknown field. Drover's own
// keys come from the schemas (ConfigOptions), so a key a driver gains moves
// to "works" in the reference without touching this list.
var nomadOptions = map[string][]string{
	"raw_exec": {"command", "args", "cgroup_v1_override", "cgroup_v2_override", "oom_score_adj", "work_dir",
		"denied_host_uids", "denied_host_gids"},
	"exec": {"command", "args", "pid_mode", "ipc_mode", "cap_add", "cap_drop", "work_dir",
		"denied_host_uids", "denied_host_gids"},
	"docker": {"image", "image_pull_timeout", "args", "auth", "auth_soft_fail", "command", "cgroupns",
		"container_exists_attempts", "cpu_hard_limit", "cpu_cfs_period", "devices", "dns_search_domains",
		"dns_options", "dns_servers", "entrypoint", "extra_hosts", "force_pull", "group_add", "healthchecks",
		"hostname", "init", "interactive", "isolation", "ipc_mode", "ipv4_address", "ipv6_address", "labels",
		"load", "logging", "mac_address", "memory_hard_limit", "mount", "network_aliases", "network_mode",
		"oom_score_adj", "pid_mode", "pids_limit", "ports", "privileged", "readonly_rootfs", "runtime",
		"security_opt", "shm_size", "storage_opt", "sysctl", "tty", "ulimit", "uts_mode", "userns_mode",
		"volumes", "volume_driver", "work_dir", "cap_add", "cap_drop", "advertise_ipv6_address"},
}

// ReferenceMarkdown is docs/reference/drivers.md: each built-in driver's
// task config options, those of its schema marked works, the other keys
// Nomad documents marked refused.
func ReferenceMarkdown() string {
	var b strings.Builder
	b.WriteString("# Driver options reference\n\n")
	b.WriteString("<!-- Generated from the built-in drivers' config schemas (internal/client/drivers/builtin);\n")
	b.WriteString("     do not edit: go test ./internal/client/drivers/builtin -run TestReferenceDocIsCurrent -update -->\n\n")
	b.WriteString("Every key of a task's `config` block is checked against its driver's schema at\n")
	b.WriteString("`job plan`, `job run` (register) and `job validate`, on the server. A key the\n")
	b.WriteString("schema lacks is refused with a 400 naming the task and the key, and the known key\n")
	b.WriteString("nearest to it (\"did you mean\"); a value of the wrong type or a missing required key\n")
	b.WriteString("is refused the same way. A third-party driver's config cannot be checked (the\n")
	b.WriteString("validate reply's `DriverConfigValidated` is false).\n")
	for _, d := range Drivers() {
		fmt.Fprintf(&b, "\n## `%s`\n\n| Option | Type | State |\n|---|---|---|\n", d)
		have := map[string]bool{}
		for _, o := range ConfigOptions(d) {
			have[o.Key] = true
			state := "works"
			if o.Required {
				state = "works (required)"
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", o.Key, o.Type, state)
		}
		refused := slices.DeleteFunc(slices.Clone(nomadOptions[d]), func(k string) bool { return have[k] })
		slices.Sort(refused)
		for _, k := range refused {
			fmt.Fprintf(&b, "| `%s` | | refused: Nomad's %s driver has it, Drover's does not |\n", k, d)
		}
	}
	return b.String()
}
