package fingerprint

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
)

func fingerprintMemory(_ context.Context, cfg Config, r *Result) error {
	total := uint64(cfg.MemoryTotalMB) << 20
	if total == 0 {
		total = memTotal()
	}
	if total == 0 {
		return errors.New("cannot read MemTotal from /proc/meminfo; set memory_total_mb in the client config")
	}
	r.Attributes["memory.totalbytes"] = strconv.FormatUint(total, 10)
	r.Resources.MemoryMB = int64(total >> 20)
	return nil
}

func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, _ := strconv.ParseUint(fields[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
