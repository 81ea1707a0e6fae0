package procutil

import (
	"os"
	"strconv"
)

// Clock ticks and page size as /proc reports them; USER_HZ is 100 on
// every Linux architecture Go supports.
const (
	ticksPerSecond = 100
	nanosPerTick   = 1e9 / ticksPerSecond
)

// GroupUsage sums CPU time (ns) and RSS (bytes) over the live processes
// of group pgid, scanning /proc since a group has no index of its own.
func GroupUsage(pgid int) (user, system, rss uint64, err error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, 0, err
	}
	page := uint64(os.Getpagesize())
	for _, e := range ents {
		pid, convErr := strconv.Atoi(e.Name())
		if convErr != nil {
			continue
		}
		st, statErr := ReadStat(pid)
		if statErr != nil || st.PGID != pgid {
			continue
		}
		user += st.UTime * nanosPerTick
		system += st.STime * nanosPerTick
		rss += st.RSSPages * page
	}
	return user, system, rss, nil
}
