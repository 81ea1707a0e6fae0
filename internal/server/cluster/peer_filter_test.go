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
	g, err := newPartitionableGossip(ml, func(addr string) Cut {
		if cut.Load() && addr == peerAddr {
			return PeerRefused
		}
		return PeerReachable
	})
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
	s := &Cluster{cfg: Config{PeerFilter: func(a string) Cut {
		if cut.Load() && a == addr {
			return PeerRefused
		}
		return PeerReachable
	}}, pool: rpcwire.NewPool()}
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

// TestFilteredConn_DroppedCutHoldsTrafficUntilHealed: under a dropped cut
// (a real partition) a dial hangs until its deadline, and on an open
// connection a write is kept back (the peer gets nothing) and a read waits
// until its deadline, with no error of its own; healed, what was kept back
// arrives, in order.
func TestFilteredConn_DroppedCutHoldsTrafficUntilHealed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	received := make(chan string, 16)
	go func() { // an echo server that reports what it reads
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			received <- string(buf[:n])
			if _, err := c.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	addr := ln.Addr().String()
	var mode atomic.Uint32
	cut := func(a string) Cut {
		if a == addr {
			return Cut(mode.Load())
		}
		return PeerReachable
	}
	dial := filterDialer(cut)

	mode.Store(uint32(PeerDropped))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	_, err = dial(ctx, addr)
	cancel()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("dial across a dropped cut = %v, want a timeout", err)
	}

	mode.Store(uint32(PeerReachable))
	conn, err := dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	echo := func(want string) {
		t.Helper()
		buf := make([]byte, 64)
		n, err := io.ReadAtLeast(conn, buf, len(want))
		if err != nil || string(buf[:n]) != want {
			t.Fatalf("read %q (%v), want %q", buf[:n], err, want)
		}
	}
	if _, err := conn.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	echo("a")
	<-received

	mode.Store(uint32(PeerDropped))
	if n, err := conn.Write([]byte("b")); err != nil || n != 1 {
		t.Fatalf("write across a dropped cut = %d, %v: it must look sent", n, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := conn.Read(make([]byte, 8)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read across a dropped cut = %v, want its deadline's timeout", err)
	}
	select {
	case got := <-received:
		t.Fatalf("the peer received %q across a dropped cut", got)
	default:
	}

	mode.Store(uint32(PeerReachable))
	_ = conn.SetReadDeadline(time.Time{})
	echo("b") // the kept-back write went out once healed
}
