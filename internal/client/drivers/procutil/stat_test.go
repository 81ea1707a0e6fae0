package procutil

import (
	"os"
	"testing"
)

func TestParseStatHandlesParensInName(t *testing.T) {
	line := "42 (a (weird) name) S 1 42 42 0 -1 4194560 1 0 0 0 7 3 0 0 20 0 1 0 12345 1000 25 18446744073709551615"
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != 'S' || st.PGID != 42 || st.UTime != 7 || st.STime != 3 || st.StartTime != 12345 || st.RSSPages != 25 {
		t.Fatalf("stat = %+v", st)
	}
}

func TestAliveChecksStartTime(t *testing.T) {
	start, err := StartTime(os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if !Alive(os.Getpid(), start) {
		t.Fatal("self not alive")
	}
	if Alive(os.Getpid(), start+1) {
		t.Fatal("recycled-PID check missed")
	}
}
