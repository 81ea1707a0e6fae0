package server

import "testing"

// The leader gives back exactly the evals held by a failed server, or by
// the earlier runs of a restarted one.
func TestRemoteHeld_TakeServer(t *testing.T) {
	var r remoteHeld
	r.add("s1", "boot1", "e1", "t1")
	r.add("s1", "boot2", "e2", "t2")
	r.add("s2", "boot9", "e3", "t3")

	if got := r.takeServer("s1", "boot2"); len(got) != 1 || got["e1"] != "t1" {
		t.Fatalf("earlier boots of s1 = %v, want only e1", got)
	}
	if got := r.takeServer("s1", ""); len(got) != 1 || got["e2"] != "t2" {
		t.Fatalf("failed s1 = %v, want e2", got)
	}
	r.remove("e3", "stale")
	if _, _, ok := r.holder("e3"); !ok {
		t.Fatal("an ack under a stale token forgot the holder")
	}
	r.remove("e3", "t3")
	if got := r.takeServer("s2", ""); len(got) != 0 {
		t.Fatalf("acked evals are not held: %v", got)
	}
}
