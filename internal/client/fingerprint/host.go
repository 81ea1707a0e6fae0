package fingerprint

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strings"
	"syscall"
)

func fingerprintHost(_ context.Context, _ Config, r *Result) error {
	a := r.Attributes
	a["kernel.name"] = runtime.GOOS
	var u syscall.Utsname
	if err := syscall.Uname(&u); err == nil {
		a["kernel.version"] = utsString(u.Release[:])
		a["kernel.arch"] = utsString(u.Machine[:])
	}
	osRelease := readOSRelease("/etc/os-release")
	if v := osRelease["ID"]; v != "" {
		a["os.name"] = v
	}
	if v := osRelease["VERSION_ID"]; v != "" {
		a["os.version"] = v
	}
	host, err := os.Hostname()
	if err != nil {
		return err
	}
	a["unique.hostname"] = host
	return nil
}

func utsString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// readOSRelease parses KEY=value lines, unquoting values.
func readOSRelease(path string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && !strings.HasPrefix(k, "#") {
			out[k] = strings.Trim(v, `"'`)
		}
	}
	return out
}
