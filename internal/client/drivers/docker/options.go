package docker

// OptionState is whether Drover acts on a docker task option.
type OptionState string

// Option states.
const (
	Works   OptionState = "works"
	Refused OptionState = "refused" // refused at submit, naming the option
)

// Option is one of Nomad's docker task config options.
type Option struct {
	Name  string
	State OptionState
	// Note says what the option does in Drover, or why it is refused.
	Note string
}

// Options is every option of Nomad's docker task config with what Drover
// does with it, in Nomad's documentation order; docs are rendered from
// it. Each "works" option has a test that creates a container through
// the driver and inspects it (options_test.go); a refused one fails
// DecodeTaskConfig, so the job is refused at submit.
var Options = []Option{
	{"image", Works, "pulled when missing, when the tag is latest or omitted, or with force_pull; by tag or digest"},
	{"image_pull_timeout", Works, "bounds the whole pull (default 5m)"},
	{"args", Works, "appended to command, or to the image's entrypoint"},
	{"auth", Works, "username, password, email, server_address for the pull; else the plugin's auth config or helper"},
	{"auth_soft_fail", Works, "a failing credential lookup pulls without credentials"},
	{"command", Works, "the container's command"},
	{"cgroupns", Works, "host or private cgroup namespace"},
	{"entrypoint", Works, "replaces the image's entrypoint"},
	{"interactive", Works, "keeps stdin open"},
	{"sysctl", Works, "namespaced sysctls"},
	{"ulimit", Works, `name = "soft[:hard]"`},
	{"privileged", Works, "needs the plugin's allow_privileged"},
	{"ipc_mode", Works, "host or container: needs allow_host_namespaces"},
	{"ipv4_address", Works, "static address on the user-defined network of network_mode"},
	{"ipv6_address", Refused, "needs an IPv6 user-defined network; Drover does not set one up"},
	{"labels", Works, "container labels, with the plugin's extra_labels and Drover's own"},
	{"load", Refused, "loading an image from an artifact tarball is not implemented; push it to a registry"},
	{"logging", Works, "type and config of the Docker log driver"},
	{"mac_address", Works, "the container's MAC address on its network"},
	{"memory_hard_limit", Works, "hard limit in MB; resources.memory becomes the reservation"},
	{"network_aliases", Works, "DNS aliases on the user-defined network of network_mode"},
	{"network_mode", Works, "bridge, none, a user-defined network; host or container: need allow_host_namespaces"},
	{"oom_score_adj", Works, "the container's OOM score adjustment"},
	{"pid_mode", Works, "host or container: needs allow_host_namespaces"},
	{"pids_limit", Works, "the container's PID limit"},
	{"ports", Works, "publishes the named allocated ports to their to (or port_map) port"},
	{"port_map", Works, "label = container port, for labels listed in ports or allocated to the task"},
	{"security_opt", Works, "passed to Docker (seccomp, apparmor, no-new-privileges...)"},
	{"shm_size", Works, "size of /dev/shm in bytes"},
	{"storage_opt", Works, "storage driver options (size needs a driver that supports quotas)"},
	{"tty", Works, "allocates a terminal; output is then one stream, logged as stdout"},
	{"uts_mode", Works, "host needs allow_host_namespaces"},
	{"userns_mode", Works, "host needs allow_host_namespaces"},
	{"volumes", Works, "host:container[:mode]; absolute hosts need volumes { enabled }, relative ones stay in the alloc dir"},
	{"volume_driver", Works, "the driver of named volumes in volumes; named volumes need volumes { enabled }"},
	{"work_dir", Works, "the container's working directory"},
	{"mount", Works, "bind (host paths as volumes), volume (with volume_options) and tmpfs (with tmpfs_options)"},
	{"mounts", Refused, "the deprecated list form; use mount blocks"},
	{"devices", Works, "host_path, container_path, cgroup_permissions"},
	{"cap_add", Works, "each must be in the plugin's allow_caps"},
	{"cap_drop", Works, "dropped from the container's capabilities"},
	{"cpu_hard_limit", Works, "a CFS quota from resources.cpu"},
	{"cpu_cfs_period", Works, "the CFS period for cpu_hard_limit, in microseconds"},
	{"cpuset_cpus", Refused, "cores are pinned from resources.cores, which the scheduler reserves"},
	{"advertise_ipv6_address", Refused, "Drover advertises services on the host's address only"},
	{"readonly_rootfs", Works, "read-only root filesystem"},
	{"runtime", Works, "each must be in the plugin's allow_runtimes"},
	{"init", Works, "runs Docker's init as PID 1"},
	{"group_add", Works, "supplementary groups"},
	{"healthchecks", Works, "disable = true turns off the image's HEALTHCHECK"},
	{"hostname", Works, "the container's hostname"},
	{"dns_servers", Works, "resolvers in the container's resolv.conf"},
	{"dns_search_domains", Works, "search domains in resolv.conf"},
	{"dns_options", Works, "options in resolv.conf"},
	{"extra_hosts", Works, `"host:ip" entries in /etc/hosts`},
	{"force_pull", Works, "pulls even when the image is present"},
	{"pull_activity_timeout", Works, "cancels a pull with no progress for this long (default: the plugin's, 2m)"},
	{"isolation", Refused, "Windows isolation; Drover runs Linux containers"},
	{"container_exists_attempts", Refused, "a leftover container of the task's name is replaced at once"},
}

var optionsByName = func() map[string]Option {
	m := make(map[string]Option, len(Options))
	for _, o := range Options {
		m[o.Name] = o
	}
	return m
}()
