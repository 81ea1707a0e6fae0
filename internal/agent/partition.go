package agent

import (
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/drover-project/drover/internal/server"
)

// partition is the fault harness's view of which peers this server cannot
// reach: the rpc and serf addresses listed in a file, re-read every 100 ms.
// Traffic to them is refused (connections break at once) unless the file
// also holds the word "drop": then it is silently dropped, as across a
// real partition (dials and reads hang).
type partition struct {
	peers atomic.Pointer[map[string]server.PeerCut]
}

// watchPartitionFile starts following path (which need not exist yet).
func watchPartitionFile(path string, log *slog.Logger) *partition {
	p := &partition{}
	empty := map[string]server.PeerCut{}
	p.peers.Store(&empty)
	go func() {
		last := ""
		for range time.Tick(100 * time.Millisecond) {
			data, _ := os.ReadFile(path)
			if string(data) == last {
				continue
			}
			last = string(data)
			fields := strings.Fields(last)
			kind := server.PeerRefused
			if slices.Contains(fields, "drop") {
				kind = server.PeerDropped
			}
			set := map[string]server.PeerCut{}
			for _, f := range fields {
				if f != "drop" {
					set[f] = kind
				}
			}
			p.peers.Store(&set)
			log.Warn("fault injection: all traffic to peers cut (raft, rpc, gossip)", "peers", fields, "dropped", kind == server.PeerDropped)
		}
	}()
	return p
}

// cut is how traffic to addr is cut; a nil partition cuts nothing.
func (p *partition) cut(addr string) server.PeerCut {
	if p == nil {
		return server.PeerReachable
	}
	return (*p.peers.Load())[addr] // PeerReachable when not listed
}
