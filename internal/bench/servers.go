package bench

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/drover-project/drover/internal/server"
)

// startServers starts n real servers as production runs them: raft on
// disk (bbolt, fsync on every commit) in temporary data dirs, raft and RPC
// over loopback TCP, gossip with bootstrap_expect = n. It returns them
// with the leader first, once the leader's pipeline is enabled.
func startServers(n int, spec Spec) ([]*server.Server, func(), error) {
	var srvs []*server.Server
	var dirs []string
	cleanup := func() {
		for _, s := range srvs {
			_ = s.Shutdown()
		}
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}
	var join []string
	for i := 0; i < n; i++ {
		dir, err := os.MkdirTemp("", "drover-bench-server-")
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		dirs = append(dirs, dir)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		srv, err := server.New(&server.Config{
			NodeName: fmt.Sprintf("bench-%d-%d", serverSeq.Add(1), i), DataDir: dir,
			NumSchedulers: spec.schedulers(), BootstrapExpect: n, SerialPlanApply: spec.SerialPlans,
			RaftAddr: ln.Addr().String(), RaftNetwork: true,
			RaftTimings: &server.RaftTimings{Heartbeat: time.Second, Election: time.Second, LeaderLease: 500 * time.Millisecond, Commit: 5 * time.Millisecond},
			Serf:        &server.SerfConfig{BindAddr: "127.0.0.1", RetryJoin: join, RetryInterval: 100 * time.Millisecond, Fast: true},
			Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			ln.Close()
			cleanup()
			return nil, nil, err
		}
		srvs = append(srvs, srv)
		if err := srv.ServeRPC(ln); err != nil {
			cleanup()
			return nil, nil, err
		}
		if i == 0 {
			join = []string{srv.SerfAddr()}
		}
	}
	var leader *server.Server
	err := waitUntil(30*time.Second, 5*time.Millisecond, func() bool {
		for _, s := range srvs {
			if st := s.Stats(); st.IsLeader && st.Paused > 0 {
				leader = s
				return true
			}
		}
		return false
	})
	if err != nil {
		cleanup()
		return nil, nil, errors.New("the servers never elected an active leader")
	}
	ordered := []*server.Server{leader}
	for _, s := range srvs {
		if s != leader {
			ordered = append(ordered, s)
		}
	}
	return ordered, cleanup, nil
}
