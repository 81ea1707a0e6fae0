package agent

import (
	"net/http"
	"runtime"
	"strconv"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// serverStats adds agent-info's server sections: nomad (leader, regions),
// raft (state, indexes) and serf (gossip member counts).
func (h *HTTPServer) serverStats(r *http.Request, out map[string]map[string]string) error {
	stats, err := server.StatusRaftStats.Call(r.Context(), h.srv, &structs.GenericRequest{})
	if err != nil {
		return err
	}
	regions, err := server.RegionList.Call(r.Context(), h.srv, &structs.QueryOptions{})
	if err != nil {
		return err
	}
	out["nomad"] = map[string]string{"server": "true", "leader": boolString(stats.IsLeader), "leader_addr": stats.Leader,
		"known_regions": strconv.Itoa(len(regions.Regions))}
	out["raft"] = map[string]string{"applied_index": uintString(stats.AppliedIndex), "term": uintString(stats.Term),
		"state": stats.State, "last_log_index": uintString(stats.LastIndex)}
	members, err := server.ClusterMembers.Call(r.Context(), h.srv, &structs.ClusterMembersRequest{})
	if err != nil {
		return err
	}
	counts := map[string]int{}
	for _, m := range members.Members {
		counts[m.Status]++
	}
	out["serf"] = map[string]string{"members": strconv.Itoa(len(members.Members)),
		"failed": strconv.Itoa(counts["failed"]), "left": strconv.Itoa(counts["left"])}
	return nil
}

// runtimeStats is agent-info's runtime section, about the Go process.
func runtimeStats() map[string]string {
	return map[string]string{
		"os": runtime.GOOS, "arch": runtime.GOARCH, "version": runtime.Version(),
		"max_procs": strconv.Itoa(runtime.GOMAXPROCS(0)), "goroutines": strconv.Itoa(runtime.NumGoroutine()),
		"cpu_count": strconv.Itoa(runtime.NumCPU()),
	}
}
