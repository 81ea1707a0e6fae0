package allocnet

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/containernetworking/cni/libcni"
)

// ReferencePlugins are the plugins fingerprinted (Nomad's list of the
// reference plugins it reports).
var ReferencePlugins = []string{"bandwidth", "bridge", "dhcp", "firewall", "host-device", "host-local",
	"ipvlan", "loopback", "macvlan", "portmap", "ptp", "sbr", "static", "tuning", "vlan", "vrf"}

// AttrPluginPrefix prefixes the node attribute of each plugin found.
const AttrPluginPrefix = "plugins.cni.version."

// AttrConfigPrefix prefixes the node attribute of each network list in
// cni_config_dir (mode = "cni/NAME" needs plugins.cni.config.NAME).
const AttrConfigPrefix = "plugins.cni.config."

var versionRE = regexp.MustCompile(`v?(\d+\.\d+\.\d+)`)

// Fingerprint reports the plugins found in cfg's cni_path, each as
// plugins.cni.version.NAME = its version ("unknown" for a build that does
// not know it), and the network lists of cni_config_dir.
func Fingerprint(ctx context.Context, cfg Config) map[string]string {
	cfg = cfg.withDefaults()
	out := map[string]string{}
	for _, name := range ReferencePlugins {
		path := findPlugin(cfg.CNIPath, name)
		if path == "" {
			continue
		}
		out[AttrPluginPrefix+name] = pluginVersion(ctx, path)
	}
	files, _ := libcni.ConfFiles(cfg.CNIConfigDir, []string{".conf", ".conflist", ".json"})
	for _, f := range files {
		if list, err := libcni.NetworkConfFromFile(f); err == nil && list.Name != "" {
			out[AttrConfigPrefix+list.Name] = "true"
		}
	}
	return out
}

func findPlugin(dirs []string, name string) string {
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// pluginVersion asks a reference plugin its version (`--version` prints
// "CNI bridge plugin v1.5.0"; Debian's builds print "version unknown").
func pluginVersion(ctx context.Context, path string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	first, _, _ := strings.Cut(string(out), "\n")
	if m := versionRE.FindStringSubmatch(first); m != nil {
		return m[1]
	}
	return "unknown"
}
