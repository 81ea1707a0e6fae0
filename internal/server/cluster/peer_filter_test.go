package cluster

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/memberlist"

	"github.com/drover-project/drover/internal/rpcwire"
)

// TestPartitionableGossip_DropsBothWays: while a peer is cut, packets to
// it vanish, packets from it are dropped and streams to it are refused;
// once healed, both directions flow again.
func TestPartitionableGossip_DropsBothWays(t *testing.T) {
	quiet := log.New(io.Discard, "", 0)
	peer, err := memberlist.NewNetTransport(&memberlist.NetTransportConfig{BindAddrs: []string{"127.0.0.1"}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Shutdown()
	peerAddr := "127.0.0.1:" + strconv.Itoa(peer.GetAutoBindPort())
	var cut atomic.Bool
	ml := &memberlist.Config{BindAddr: "127.0.0.1", Logger: quiet}
	g, err := newPartitionableGossip(ml, func(addr string) bool { return cut.Load() && addr == peerAddr })
	if err != nil {
		t.Fatal(err)
	}
	defer g.Shutdown()
	selfAddr := "127.0.0.1:" + strconv.Itoa(ml.BindPort)

	for _, tt := range []struct {
		cut  bool
		want bool // packets arrive both ways, a stream opens
	}{{true, false}, {false, true}, {true, false}} {
		cut.Store(tt.cut)
		if _, err := g.WriteTo([]byte("out"), peerAddr); err != nil {
			t.Fatal(err)
		}
		if got := received(peer.PacketCh()); got != tt.want {
			t.Fatalf("cut=%v: packet to the peer arrived = %v", tt.cut, got)
		}
		if _, err := peer.WriteTo([]byte("in"), selfAddr); err != nil {
			t.Fatal(err)
		}
		if got := received(g.PacketCh()); got != tt.want {
			t.Fatalf("cut=%v: packet from the peer passed = %v", tt.cut, got)
		}
		conn, err := g.DialTimeout(peerAddr, time.Second)
		if (err == nil) != tt.want {
			t.Fatalf("cut=%v: stream dial error %v", tt.cut, err)
		}
		if conn != nil {
			conn.Close()
			<-peer.StreamCh()
		}
	}
}

// received reports whether a packet arrives soon (UDP on loopback).
func received(ch <-chan *memberlist.Packet) bool {
	select {
	case <-ch:
		return true
	case <-time.After(200 * time.Millisecond): // real time: a UDP packet that was dropped never shows up
		return false
	}
}

// TestPeerRPC_CutRefusesAndBreaksCalls: a call to a cut peer never dials,
// and a call in flight (a server that never answers, like a blocking
// dequeue) ends once its peer is cut.
func TestPeerRPC_CutRefusesAndBreaksCalls(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var held []net.Conn // open, never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	addr := ln.Addr().String()
	var cut atomic.Bool
	s := &Cluster{cfg: Config{PeerBlocked: func(a string) bool { return cut.Load() && a == addr }}, pool: rpcwire.NewPool()}
	defer s.pool.Close()

	cut.Store(true)
	var dialErr *rpcwire.DialError
	if err := s.PeerRPC(context.Background(), addr, "Status.Ping", &struct{}{}, &struct{}{}); !errors.As(err, &dialErr) {
		t.Fatalf("call to a cut peer = %v, want a dial error", err)
	}

	cut.Store(false)
	done := make(chan error, 1)
	go func() { done <- s.PeerRPC(context.Background(), addr, "Status.Ping", &struct{}{}, &struct{}{}) }()
	select {
	case err := <-done:
		t.Fatalf("the call returned before the cut: %v", err)
	case <-time.After(100 * time.Millisecond): // real time: five of PeerRPC's cut polls (on the real clock) pass
	}
	cut.Store(true)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a call cut mid-flight succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call in flight to a cut peer did not end")
	}
}
