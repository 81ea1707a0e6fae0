package fingerprint

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func fingerprintStorage(_ context.Context, cfg Config, r *Result) error {
	dir := existingAncestor(cfg.DataDir)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", dir, err)
	}
	total := st.Blocks * uint64(st.Bsize)
	free := st.Bavail * uint64(st.Bsize) // what an unprivileged writer gets
	r.Attributes["unique.storage.volume"] = mountSource(dir)
	r.Attributes["unique.storage.bytestotal"] = strconv.FormatUint(total, 10)
	r.Attributes["unique.storage.bytesfree"] = strconv.FormatUint(free, 10)
	r.Resources.DiskMB = int64(free >> 20)
	return nil
}

// existingAncestor lets a client fingerprint before creating its data dir.
func existingAncestor(dir string) string {
	if dir == "" {
		return "/"
	}
	dir, _ = filepath.Abs(dir)
	for {
		if _, err := os.Stat(dir); err == nil || dir == "/" {
			return dir
		}
		dir = filepath.Dir(dir)
	}
}

// mountSource is the device of the mount holding dir: the longest mount
// point that prefixes it in /proc/self/mountinfo.
func mountSource(dir string) string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	best, source := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 2 {
			continue
		}
		mp := fields[4]
		if within(dir, mp) && len(mp) >= len(best) {
			best, source = mp, tail[1]
		}
	}
	return source
}

func within(path, mount string) bool {
	return mount == "/" || path == mount || strings.HasPrefix(path, mount+"/")
}
