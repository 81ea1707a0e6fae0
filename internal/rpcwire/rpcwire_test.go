package rpcwire

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// An error keeps its HTTP status and its sentinel across the wire.
func TestErrorRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		code     int
		wantCode int // 0: not a CodedError after the trip
		wantNode bool
	}{
		{"bad request", errors.New("Job: missing job"), 400, 400, false},
		{"no leader", errors.New("no cluster leader"), 503, 503, false},
		{"internal", errors.New("disk full"), 500, 0, false},
		{"node not found, coded", fmt.Errorf("node x: %w", structs.ErrNodeNotFound), 404, 404, true},
		{"node not found, uncoded", fmt.Errorf("node x: %w", structs.ErrNodeNotFound), 500, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent := Encode(tc.err, tc.code)
			got := DecodeError(rpc.ServerError(sent.Error()))
			var coded *CodedError
			isCoded := errors.As(got, &coded)
			if (tc.wantCode != 0) != isCoded || (isCoded && coded.Code != tc.wantCode) {
				t.Fatalf("decoded %#v, want code %d", got, tc.wantCode)
			}
			if errors.Is(got, structs.ErrNodeNotFound) != tc.wantNode {
				t.Fatalf("errors.Is(ErrNodeNotFound) = %v, want %v (%v)", !tc.wantNode, tc.wantNode, got)
			}
			if isCoded && got.Error() != tc.err.Error() {
				t.Fatalf("message %q, want %q", got.Error(), tc.err.Error())
			}
		})
	}
}

// A call that cannot reach the server reports a DialError (safe to retry).
func TestPool_DialError(t *testing.T) {
	p := NewPool()
	defer p.Close()
	err := p.RPC(context.Background(), "127.0.0.1:1", "Status.Leader", struct{}{}, &struct{}{})
	var dial *DialError
	if !errors.As(err, &dial) {
		t.Fatalf("err = %v, want a DialError", err)
	}
}
