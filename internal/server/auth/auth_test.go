package auth

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/hashicorp/raft"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// fakeServer applies entries straight to an FSM, in order: raft of one
// server without the log.
type fakeServer struct {
	fsm   *fsm.FSM
	index uint64
}

var _ Server = (*fakeServer)(nil)

func (f *fakeServer) State() *state.StateStore { return f.fsm.State() }

func (f *fakeServer) RaftApply(t structs.MessageType, msg any) (uint64, error) {
	buf, err := structs.Encode(t, msg)
	if err != nil {
		return 0, err
	}
	f.index++
	if err, ok := f.fsm.Apply(&raft.Log{Index: f.index, Type: raft.LogCommand, Data: buf}).(error); ok && err != nil {
		return 0, err
	}
	return f.index, nil
}

func (f *fakeServer) Peers() ([]Peer, bool) { return nil, false }

func (f *fakeServer) RPC(context.Context, string, string, any, any) error {
	return errors.New("no other servers")
}

// testService is a Service of a single, gossip-less server in dev mode.
func testService(t testing.TB, acl ACLConfig) (*Service, *fakeServer) {
	t.Helper()
	return testServiceAt(t, acl, clock.Real{})
}

// testServiceAt is testService on clock clk.
func testServiceAt(t testing.TB, acl ACLConfig, clk clock.Clock) (*Service, *fakeServer) {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f, err := fsm.New(log)
	if err != nil {
		t.Fatal(err)
	}
	srv := &fakeServer{fsm: f}
	s, err := New(Config{ACL: acl, Region: "global", NodeID: "server-1", Clock: clk, Logger: log}, srv)
	if err != nil {
		t.Fatal(err)
	}
	return s, srv
}
