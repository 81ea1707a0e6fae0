package docker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

func TestContainerConfig_RefusesHostAccessUnlessAllowed(t *testing.T) {
	cases := []struct {
		name   string
		cfg    TaskConfig
		plugin PluginConfig
		field  string // "" means allowed
	}{
		{"host bind mount", TaskConfig{Volumes: []string{"/:/host:ro"}}, PluginConfig{}, "volumes"},
		{"host bind mount allowed", TaskConfig{Volumes: []string{"/:/host:ro"}}, PluginConfig{Volumes: VolumesConfig{Enabled: true}}, ""},
		{"relative path inside", TaskConfig{Volumes: []string{"local/data:/data"}}, PluginConfig{}, ""},
		{"relative into the alloc dir", TaskConfig{Volumes: []string{"../alloc/data:/shared"}}, PluginConfig{}, ""},
		{"relative path escaping", TaskConfig{Volumes: []string{"../../../etc:/etc2"}}, PluginConfig{}, "volumes"},
		{"relative path through a symlink out", TaskConfig{Volumes: []string{"local/root/etc:/x"}}, PluginConfig{}, "volumes"},
		{"privileged", TaskConfig{Privileged: true}, PluginConfig{}, "privileged"},
		{"privileged allowed", TaskConfig{Privileged: true}, PluginConfig{AllowPrivileged: true}, ""},
		{"host network", TaskConfig{NetworkMode: "host"}, PluginConfig{}, "network_mode"},
		{"host pid", TaskConfig{PidMode: "host"}, PluginConfig{}, "pid_mode"},
		{"host ipc", TaskConfig{IpcMode: "host"}, PluginConfig{}, "ipc_mode"},
		{"host uts", TaskConfig{UTSMode: "host"}, PluginConfig{}, "uts_mode"},
		{"another container's pid", TaskConfig{PidMode: "container:abc"}, PluginConfig{}, "pid_mode"},
		{"host namespaces allowed", TaskConfig{NetworkMode: "host", PidMode: "host"}, PluginConfig{AllowHostNamespaces: true}, ""},
		{"bridge network", TaskConfig{NetworkMode: "bridge"}, PluginConfig{}, ""},
		{"host userns", TaskConfig{UsernsMode: "host"}, PluginConfig{}, "userns_mode"},
		{"cap outside allow_caps", TaskConfig{CapAdd: []string{"SYS_ADMIN"}}, PluginConfig{AllowCaps: defaultAllowCaps}, "cap_add"},
		{"cap in allow_caps", TaskConfig{CapAdd: []string{"CAP_NET_BIND_SERVICE", "chown"}}, PluginConfig{AllowCaps: defaultAllowCaps}, ""},
		{"any cap with allow_caps all", TaskConfig{CapAdd: []string{"sys_admin"}}, PluginConfig{AllowCaps: []string{"ALL"}}, ""},
		{"runtime outside allow_runtimes", TaskConfig{Runtime: "nvidia"}, PluginConfig{AllowRuntimes: []string{"runc"}}, "runtime"},
		{"runtime in allow_runtimes", TaskConfig{Runtime: "runc"}, PluginConfig{AllowRuntimes: []string{"runc"}}, ""},
		{"host bind mount block", TaskConfig{Mounts: []Mount{{Type: "bind", Source: "/etc", Target: "/x"}}}, PluginConfig{}, "mount"},
		{"relative bind mount block escaping", TaskConfig{Mounts: []Mount{{Source: "../../../etc", Target: "/x"}}}, PluginConfig{}, "mount"},
		{"volume driver without volumes enabled", TaskConfig{Mounts: []Mount{{Type: "volume", Source: "v", Target: "/x", VolumeOptions: VolumeOptions{DriverConfig: DriverConfig{Name: "nfs"}}}}}, PluginConfig{}, "mount"},
		{"named volume of volume_driver without volumes enabled", TaskConfig{VolumeDriver: "local", Volumes: []string{"data:/data"}}, PluginConfig{}, "volume_driver"},
		{"network_aliases on the default bridge", TaskConfig{NetworkAliases: []string{"web"}}, PluginConfig{}, "network_aliases"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			task := newTask(t, "web", nil)
			if err := os.Symlink("/", filepath.Join(task.TaskDir.LocalDir, "root")); err != nil {
				t.Fatal(err)
			}
			cfg := tc.cfg
			cfg.Image = "busybox"
			cc, staged, err := containerConfig(task, &cfg, &tc.plugin)
			defer staged.Close()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				allocRoot := filepath.Dir(task.TaskDir.Dir)
				for _, b := range cc.HostConfig.Binds[3:] {
					if src := strings.Split(b, ":")[0]; src != "/" && !strings.HasPrefix(src, allocRoot+"/"+stagingPrefix) {
						t.Fatalf("bind %q is not a staging mount in the alloc dir %s", b, allocRoot)
					}
				}
				return
			}
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("got %v, want a config error on %s", err, tc.field)
			}
		})
	}
}

// With Docker present: the bind mount of / that read the host's files is
// refused at Start.
func TestStart_RefusesHostRootBindMount(t *testing.T) {
	requireImage(t)
	d := newDriver(t)
	task := newTask(t, "web", map[string]any{
		"image": testImage, "command": "cat", "args": []any{"/host/etc/hostname"}, "volumes": []any{"/:/host:ro"},
	})
	_, err := d.Start(context.Background(), task)
	var ce *drivers.ConfigError
	if !errors.As(err, &ce) || ce.Field != "volumes" {
		_ = d.Destroy(task.ID, true)
		t.Fatalf("start with / bind-mounted: %v", err)
	}
}
