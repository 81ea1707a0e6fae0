package agent

import (
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// partition is the fault harness's view of which peers this server cannot
// reach: the rpc and serf addresses listed in a file, re-read every 100 ms.
type partition struct {
	peers atomic.Pointer[map[string]bool]
}

// watchPartitionFile starts following path (which need not exist yet).
func watchPartitionFile(path string, log *slog.Logger) *partition {
	p := &partition{}
	empty := map[string]bool{}
	p.peers.Store(&empty)
	go func() {
		last := ""
		for range time.Tick(100 * time.Millisecond) {
			data, _ := os.ReadFile(path)
			if string(data) == last {
				continue
			}
			last = string(data)
			set := map[string]bool{}
			for _, line := range strings.Fields(last) {
				set[line] = true
			}
			p.peers.Store(&set)
			log.Warn("fault injection: all traffic dropped to peers (raft, rpc, gossip)", "peers", strings.Fields(last))
		}
	}()
	return p
}

// blocked reports whether traffic to addr is dropped; a nil partition
// drops nothing.
func (p *partition) blocked(addr string) bool {
	if p == nil {
		return false
	}
	return (*p.peers.Load())[addr]
}
