package docker

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/netip"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
)

// inspected is a container the driver made, as the daemon describes it.
type inspected struct {
	c    *container.InspectResponse
	task *drivers.TaskConfig
}

type optionCheck func(t *testing.T, in inspected)

// pulledOptions are the "works" options about getting the image, not the
// container; the registry tests prove them (registry_test.go).
var pulledOptions = map[string]string{
	"image": "TestRegistry", "image_pull_timeout": "TestPullTimeouts", "pull_activity_timeout": "TestPullTimeouts",
	"auth": "TestRegistry", "auth_soft_fail": "TestRegistry", "force_pull": "TestRegistry",
	"storage_opt": "TestStorageOptReachesTheDaemon",
}

// TestOptionsTable keeps the table honest: every option the schema
// decodes is listed, every listed "works" option is either checked on a
// created container below or proven by a named pull test, and every
// refused one is refused by DecodeTaskConfig naming it.
func TestOptionsTable(t *testing.T) {
	decoded := map[string]bool{"mount": true, "devices": true, "port_map": true}
	rt := reflect.TypeOf(TaskConfig{})
	for i := 0; i < rt.NumField(); i++ {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("cfg"), ","); name != "" {
			decoded[name] = true
		}
	}
	checks := map[string]bool{}
	for _, g := range optionGroups {
		for name := range g.checks {
			checks[name] = true
		}
	}
	for _, o := range Options {
		switch o.State {
		case Works:
			if !decoded[o.Name] {
				t.Errorf("%s is listed as working but the schema does not decode it", o.Name)
			}
			if !checks[o.Name] && pulledOptions[o.Name] == "" {
				t.Errorf("%s is listed as working but no test inspects it", o.Name)
			}
		case Refused:
			if decoded[o.Name] {
				t.Errorf("%s is refused but the schema decodes it", o.Name)
			}
			_, err := DecodeTaskConfig(map[string]any{"image": "x", o.Name: "v"})
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != o.Name || !strings.Contains(ce.Reason, "not supported") {
				t.Errorf("%s: DecodeTaskConfig = %v, want it refused by name", o.Name, err)
			}
		default:
			t.Errorf("%s: state %q", o.Name, o.State)
		}
		delete(decoded, o.Name)
	}
	for name := range decoded {
		t.Errorf("the schema decodes %s but Options does not list it", name)
	}
}

// optionGroup is one container made with a set of options, and the
// checks of what the daemon made of them.
type optionGroup struct {
	name   string
	plugin map[string]any
	cfg    map[string]any
	setup  func(t *testing.T, c *client.Client, task *drivers.TaskConfig, cfg map[string]any)
	// createOnly creates the container without starting it, for options
	// this machine's daemon cannot run (privileged inside a container).
	createOnly bool
	checks     map[string]optionCheck
}

func hc(in inspected) *container.HostConfig { return in.c.HostConfig }

var optionGroups = []optionGroup{
	{
		name: "user network",
		cfg: map[string]any{
			"network_aliases": []any{"web-alias"}, "ipv4_address": "172.29.77.10",
			"hostname": "opt-host", "dns_servers": []any{"192.0.2.53"}, "dns_search_domains": []any{"example.internal"},
			"dns_options": []any{"ndots:2"}, "extra_hosts": []any{"db.internal:192.0.2.7"},
			"labels": []map[string]any{{"team": "core"}}, "cap_add": []any{"net_bind_service"}, "cap_drop": []any{"mknod"},
			"security_opt": []any{"no-new-privileges"}, "runtime": "runc", "readonly_rootfs": true, "init": true,
			"group_add": []any{"100"}, "ulimit": map[string]any{"nofile": "1024:2048"}, "sysctl": map[string]any{"net.core.somaxconn": "1024"},
			"shm_size": 128 << 20, "oom_score_adj": 500, "pids_limit": 64, "memory_hard_limit": 128, "cpu_hard_limit": true,
			"cpu_cfs_period": 50000, "healthchecks": []map[string]any{{"disable": true}}, "work_dir": "/local",
			"command": "/server", "args": []any{"serve"}, "interactive": true, "tty": true,
			"logging": []map[string]any{{"type": "json-file", "config": []map[string]any{{"max-size": "10m"}}}},
			"ports":   []any{"http"}, "port_map": []map[string]any{{"admin": 9090}},
			"mount": []map[string]any{
				{"type": "tmpfs", "target": "/scratch", "tmpfs_options": []map[string]any{{"size": 1 << 20, "mode": 1777}}},
				{"type": "volume", "target": "/data", "source": "", "volume_options": []map[string]any{{"no_copy": true, "labels": []map[string]any{{"owner": "drover-test"}}}}},
				{"type": "bind", "target": "/cfg", "source": "local", "readonly": true, "bind_options": []map[string]any{{"propagation": "rprivate"}}},
			},
			"devices":     []map[string]any{{"host_path": "/dev/zero", "container_path": "/dev/zero2", "cgroup_permissions": "r"}},
			"cgroupns":    "private",
			"mac_address": "02:42:ac:1d:4d:0a",
		},
		plugin: map[string]any{"extra_labels": []any{"job_*", "task_group_name"}},
		setup: func(t *testing.T, c *client.Client, task *drivers.TaskConfig, cfg map[string]any) {
			name := "drover-opt-net-" + strconv.Itoa(os.Getpid())
			_, err := c.NetworkCreate(context.Background(), name, client.NetworkCreateOptions{
				IPAM: &network.IPAM{Config: []network.IPAMConfig{{Subnet: netip.MustParsePrefix("172.29.77.0/24")}}},
			})
			if err != nil {
				t.Fatalf("create network: %v", err)
			}
			t.Cleanup(func() { _, _ = c.NetworkRemove(context.Background(), name, client.NetworkRemoveOptions{}) })
			cfg["network_mode"] = name
			task.JobName = "optjob"
			task.Env["NOMAD_GROUP_NAME"] = "optgroup"
			task.Resources.CoreIDs = []uint16{0}
			task.Ports = []drivers.PortMapping{{Label: "http", Value: freePort(t), To: 8080, HostIP: "127.0.0.1"}, {Label: "admin", Value: freePort(t)}}
		},
		checks: map[string]optionCheck{
			"network_mode": func(t *testing.T, in inspected) {
				if !strings.HasPrefix(string(hc(in).NetworkMode), "drover-opt-net-") {
					t.Errorf("network mode %q", hc(in).NetworkMode)
				}
			},
			"network_aliases": func(t *testing.T, in inspected) {
				if ep := endpointOf(in); ep == nil || !slices.Contains(ep.Aliases, "web-alias") {
					t.Errorf("endpoint %+v", ep)
				}
			},
			"ipv4_address": func(t *testing.T, in inspected) {
				if ep := endpointOf(in); ep == nil || ep.IPAddress.String() != "172.29.77.10" {
					t.Errorf("endpoint %+v", ep)
				}
			},
			"mac_address": func(t *testing.T, in inspected) {
				if ep := endpointOf(in); ep == nil || ep.MacAddress.String() != "02:42:ac:1d:4d:0a" {
					t.Errorf("endpoint %+v", ep)
				}
			},
			"hostname": func(t *testing.T, in inspected) { eq(t, in.c.Config.Hostname, "opt-host") },
			"dns_servers": func(t *testing.T, in inspected) {
				if len(hc(in).DNS) != 1 || hc(in).DNS[0].String() != "192.0.2.53" {
					t.Errorf("dns %v", hc(in).DNS)
				}
			},
			"dns_search_domains": func(t *testing.T, in inspected) { eq(t, hc(in).DNSSearch, []string{"example.internal"}) },
			"dns_options":        func(t *testing.T, in inspected) { eq(t, hc(in).DNSOptions, []string{"ndots:2"}) },
			"extra_hosts":        func(t *testing.T, in inspected) { eq(t, hc(in).ExtraHosts, []string{"db.internal:192.0.2.7"}) },
			"labels": func(t *testing.T, in inspected) {
				l := in.c.Config.Labels
				if l["team"] != "core" || l[LabelAllocID] != in.task.AllocID || l["com.hashicorp.nomad.job_name"] != "optjob" || l["com.hashicorp.nomad.task_group_name"] != "optgroup" {
					t.Errorf("labels %v", l)
				}
			},
			"cap_add":         func(t *testing.T, in inspected) { eq(t, hc(in).CapAdd, []string{"CAP_NET_BIND_SERVICE"}) },
			"cap_drop":        func(t *testing.T, in inspected) { eq(t, hc(in).CapDrop, []string{"CAP_MKNOD"}) },
			"security_opt":    func(t *testing.T, in inspected) { eq(t, hc(in).SecurityOpt, []string{"no-new-privileges"}) },
			"runtime":         func(t *testing.T, in inspected) { eq(t, hc(in).Runtime, "runc") },
			"readonly_rootfs": func(t *testing.T, in inspected) { eq(t, hc(in).ReadonlyRootfs, true) },
			"init": func(t *testing.T, in inspected) {
				if hc(in).Init == nil || !*hc(in).Init {
					t.Errorf("init %v", hc(in).Init)
				}
			},
			"group_add": func(t *testing.T, in inspected) { eq(t, hc(in).GroupAdd, []string{"100"}) },
			"ulimit": func(t *testing.T, in inspected) {
				if u := hc(in).Ulimits; len(u) != 1 || u[0].Name != "nofile" || u[0].Soft != 1024 || u[0].Hard != 2048 {
					t.Errorf("ulimits %v", u)
				}
			},
			"sysctl": func(t *testing.T, in inspected) {
				eq(t, hc(in).Sysctls, map[string]string{"net.core.somaxconn": "1024"})
			},
			"shm_size":      func(t *testing.T, in inspected) { eq(t, hc(in).ShmSize, int64(128<<20)) },
			"oom_score_adj": func(t *testing.T, in inspected) { eq(t, hc(in).OomScoreAdj, 500) },
			"pids_limit": func(t *testing.T, in inspected) {
				if hc(in).PidsLimit == nil || *hc(in).PidsLimit != 64 {
					t.Errorf("pids limit %v", hc(in).PidsLimit)
				}
			},
			"memory_hard_limit": func(t *testing.T, in inspected) {
				eq(t, hc(in).Memory, int64(128<<20))
				eq(t, hc(in).MemoryReservation, int64(64<<20)) // resources.memory
			},
			"cpu_hard_limit": func(t *testing.T, in inspected) {
				if want := max(100*50000/mhzPerCore(), 1000); hc(in).CPUQuota != want {
					t.Errorf("cpu quota %d, want %d", hc(in).CPUQuota, want)
				}
			},
			"cpu_cfs_period": func(t *testing.T, in inspected) { eq(t, hc(in).CPUPeriod, int64(50000)) },
			"healthchecks": func(t *testing.T, in inspected) {
				if h := in.c.Config.Healthcheck; h == nil || !slices.Equal(h.Test, []string{"NONE"}) {
					t.Errorf("healthcheck %+v", h)
				}
			},
			"work_dir":    func(t *testing.T, in inspected) { eq(t, in.c.Config.WorkingDir, "/local") },
			"command":     func(t *testing.T, in inspected) { eq(t, []string(in.c.Config.Cmd)[0], "/server") },
			"args":        func(t *testing.T, in inspected) { eq(t, []string(in.c.Config.Cmd), []string{"/server", "serve"}) },
			"interactive": func(t *testing.T, in inspected) { eq(t, in.c.Config.OpenStdin, true) },
			"tty":         func(t *testing.T, in inspected) { eq(t, in.c.Config.Tty, true) },
			"logging": func(t *testing.T, in inspected) {
				if lc := hc(in).LogConfig; lc.Type != "json-file" || lc.Config["max-size"] != "10m" {
					t.Errorf("log config %+v", lc)
				}
			},
			"ports": func(t *testing.T, in inspected) {
				b := hc(in).PortBindings[network.MustParsePort("8080/tcp")]
				if len(b) != 1 || b[0].HostPort != strconv.Itoa(in.task.Ports[0].Value) || b[0].HostIP.String() != "127.0.0.1" {
					t.Errorf("8080/tcp bindings %v", b)
				}
			},
			"port_map": func(t *testing.T, in inspected) {
				b := hc(in).PortBindings[network.MustParsePort("9090/udp")]
				if len(b) != 1 || b[0].HostPort != strconv.Itoa(in.task.Ports[1].Value) {
					t.Errorf("9090/udp bindings %v", b)
				}
			},
			"mount": func(t *testing.T, in inspected) {
				byTarget := map[string]mount.Mount{}
				for _, m := range hc(in).Mounts {
					byTarget[m.Target] = m
				}
				if m := byTarget["/scratch"]; m.Type != mount.TypeTmpfs || m.TmpfsOptions == nil || m.TmpfsOptions.SizeBytes != 1<<20 || m.TmpfsOptions.Mode != 0o1777 {
					t.Errorf("tmpfs %+v", m)
				}
				if m := byTarget["/data"]; m.Type != mount.TypeVolume || m.VolumeOptions == nil || !m.VolumeOptions.NoCopy || m.VolumeOptions.Labels["owner"] != "drover-test" {
					t.Errorf("volume %+v", m)
				}
				if m := byTarget["/cfg"]; m.Type != mount.TypeBind || !m.ReadOnly || m.BindOptions == nil || m.BindOptions.Propagation != mount.PropagationRPrivate {
					t.Errorf("bind %+v", m)
				}
			},
			"devices": func(t *testing.T, in inspected) {
				eq(t, hc(in).Devices, []container.DeviceMapping{{PathOnHost: "/dev/zero", PathInContainer: "/dev/zero2", CgroupPermissions: "r"}})
			},
			"cgroupns": func(t *testing.T, in inspected) { eq(t, hc(in).CgroupnsMode, container.CgroupnsMode("private")) },
		},
	},
	{
		name:   "host namespaces",
		plugin: map[string]any{"allow_privileged": true, "allow_host_namespaces": true, "volumes": []map[string]any{{"enabled": true}}},
		cfg: map[string]any{
			"network_mode": "host", "pid_mode": "host", "ipc_mode": "host", "uts_mode": "host", "userns_mode": "host",
			"entrypoint": []any{"/server"}, "volume_driver": "local", "volumes": []any{"drover-opt-vol:/vol"},
		},
		checks: map[string]optionCheck{
			"pid_mode":      func(t *testing.T, in inspected) { eq(t, hc(in).PidMode, container.PidMode("host")) },
			"ipc_mode":      func(t *testing.T, in inspected) { eq(t, hc(in).IpcMode, container.IpcMode("host")) },
			"uts_mode":      func(t *testing.T, in inspected) { eq(t, hc(in).UTSMode, container.UTSMode("host")) },
			"userns_mode":   func(t *testing.T, in inspected) { eq(t, hc(in).UsernsMode, container.UsernsMode("host")) },
			"entrypoint":    func(t *testing.T, in inspected) { eq(t, []string(in.c.Config.Entrypoint), []string{"/server"}) },
			"volume_driver": func(t *testing.T, in inspected) { eq(t, hc(in).VolumeDriver, "local") },
			"volumes": func(t *testing.T, in inspected) {
				if !slices.Contains(hc(in).Binds, "drover-opt-vol:/vol") {
					t.Errorf("binds %v", hc(in).Binds)
				}
			},
		},
	},
	{
		name:       "privileged",
		createOnly: true,
		plugin:     map[string]any{"allow_privileged": true},
		cfg:        map[string]any{"privileged": true},
		checks: map[string]optionCheck{
			"privileged": func(t *testing.T, in inspected) { eq(t, hc(in).Privileged, true) },
		},
	},
}

// TestOptionsReachTheContainer creates a container per group through the
// driver and checks each option on the daemon's inspect of it.
func TestOptionsReachTheContainer(t *testing.T) {
	requireImage(t)
	c := requireDaemon(t)
	for _, g := range optionGroups {
		t.Run(g.name, func(t *testing.T) {
			d, err := New(g.plugin, drivers.Env{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := map[string]any{"image": testImage}
			for k, v := range g.cfg {
				cfg[k] = v
			}
			task := newTask(t, "opt", cfg)
			task.Resources.CoreIDs = nil
			if g.setup != nil {
				g.setup(t, c, task, cfg)
			}
			t.Cleanup(func() {
				if v, ok := cfg["volumes"]; ok && len(v.([]any)) > 0 {
					_, _ = c.VolumeRemove(context.Background(), "drover-opt-vol", client.VolumeRemoveOptions{Force: true})
				}
			})
			var id string
			if g.createOnly {
				dd := d.(*Driver)
				tcfg, err := DecodeTaskConfig(cfg)
				if err != nil {
					t.Fatal(err)
				}
				spec, staged, err := containerConfig(task, tcfg, &dd.cfg)
				if err != nil {
					t.Fatal(err)
				}
				staged.Close()
				if id, err = dd.create(context.Background(), containerName(task), spec); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { dd.removeContainer(id) })
			} else {
				var st taskState
				if err := json.Unmarshal(start(t, d, task).State, &st); err != nil {
					t.Fatal(err)
				}
				id = st.ContainerID
			}
			res, err := c.ContainerInspect(context.Background(), id, client.ContainerInspectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			in := inspected{c: &res.Container, task: task}
			for _, name := range slices.Sorted(maps.Keys(g.checks)) {
				t.Run(name, func(t *testing.T) { g.checks[name](t, in) })
			}
			if g.name == "user network" {
				eq(t, hc(in).CpusetCpus, "0") // from resources.cores
			}
		})
	}
}

// TestStorageOptReachesTheDaemon: storage_opt needs a storage driver with
// quotas (overlay on xfs with pquota), which CI machines rarely have; the
// daemon's own refusal of the option shows the driver passed it on.
func TestStorageOptReachesTheDaemon(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	task := newTask(t, "sopt", map[string]any{"image": testImage, "storage_opt": map[string]any{"size": "120m"}})
	h, err := d.Start(context.Background(), task)
	if err == nil {
		defer d.Destroy(task.ID, true)
		var st taskState
		_ = json.Unmarshal(h.State, &st)
		res, err := requireDaemon(t).ContainerInspect(context.Background(), st.ContainerID, client.ContainerInspectOptions{})
		if err != nil || res.Container.HostConfig.StorageOpt["size"] != "120m" {
			t.Fatalf("storage opt %v, %v", res.Container.HostConfig.StorageOpt, err)
		}
		return
	}
	if !strings.Contains(strings.ToLower(err.Error()), "storage") {
		t.Fatalf("start = %v, want the daemon's word on storage-opt", err)
	}
}

func endpointOf(in inspected) *network.EndpointSettings {
	if in.c.NetworkSettings == nil {
		return nil
	}
	return in.c.NetworkSettings.Networks[string(in.c.HostConfig.NetworkMode)]
}

func eq[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}
