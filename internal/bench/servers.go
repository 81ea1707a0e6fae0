package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/pprof"
	"time"

	"github.com/drover-project/drover/internal/server"
)

// startLabelledServer starts a server and its RPC listener with the pprof
// label server=name, which every goroutine they start inherits (raft,
// workers, the plan applier, RPC handlers): a CPU profile of a run
// (-cpuprofile) then splits by server with 'go tool pprof -tags' or
// '-tagfocus server=NAME'. It closes ln if the server does not start.
func startLabelledServer(name string, ln net.Listener, cfg *server.Config) (srv *server.Server, err error) {
	pprof.Do(context.Background(), pprof.Labels("server", name), func(context.Context) {
		srv, err = server.New(cfg)
		if err != nil {
			ln.Close()
			return
		}
		if err = srv.ServeRPC(ln); err != nil {
			_ = srv.Shutdown()
		}
	})
	return srv, err
}

// startServers starts n real servers as production runs them: raft on
// disk (a new data dir's raft-wal log, fsync on every commit) in temporary
// data dirs, raft and RPC over loopback TCP, gossip with bootstrap_expect
// = n. It returns them with the leader first, once the leader's pipeline
// is enabled, and their names (pprof labels) in the same order.
func startServers(n int, spec Spec) ([]*server.Server, []string, func(), error) {
	var srvs []*server.Server
	names := map[*server.Server]string{}
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
			return nil, nil, nil, err
		}
		dirs = append(dirs, dir)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		name := fmt.Sprintf("bench-%d-%d", serverSeq.Add(1), i)
		srv, err := startLabelledServer(name, ln, &server.Config{
			NodeName: name, DataDir: dir,
			NumSchedulers: spec.schedulers(), BootstrapExpect: n, SerialPlanApply: spec.SerialPlans,
			JobMaxCount: spec.jobMaxCount(),
			RaftAddr:    ln.Addr().String(), RaftNetwork: true,
			RaftTimings: &server.RaftTimings{Heartbeat: time.Second, Election: time.Second, LeaderLease: 500 * time.Millisecond, Commit: 5 * time.Millisecond},
			Serf:        &server.SerfConfig{BindAddr: "127.0.0.1", RetryJoin: join, RetryInterval: 100 * time.Millisecond, Fast: true},
			Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			cleanup()
			return nil, nil, nil, err
		}
		srvs = append(srvs, srv)
		names[srv] = name
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
		return nil, nil, nil, errors.New("the servers never elected an active leader")
	}
	ordered := []*server.Server{leader}
	for _, s := range srvs {
		if s != leader {
			ordered = append(ordered, s)
		}
	}
	var orderedNames []string
	for _, s := range ordered {
		orderedNames = append(orderedNames, names[s])
	}
	return ordered, orderedNames, cleanup, nil
}
