package drivers

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

func TestSignalThenWait(t *testing.T) {
	exited := make(chan struct{})
	close(exited)
	never := make(chan struct{})
	var sent []syscall.Signal
	send := func(s syscall.Signal) error { sent = append(sent, s); return nil }

	if ok, err := SignalThenWait(syscall.SIGTERM, time.Second, exited, send); !ok || err != nil {
		t.Fatalf("task that exits on the signal: %v %v", ok, err)
	}
	if ok, err := SignalThenWait(syscall.SIGTERM, time.Millisecond, never, send); ok || err != nil {
		t.Fatalf("task that ignores the signal: %v %v", ok, err)
	}
	if ok, _ := SignalThenWait(syscall.SIGKILL, time.Hour, never, send); ok || len(sent) != 2 {
		t.Fatalf("SIGKILL is left to the caller: exited %v, sent %v", ok, sent)
	}
	boom := errors.New("boom")
	if _, err := SignalThenWait(syscall.SIGINT, time.Hour, never, func(syscall.Signal) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("send error: %v", err)
	}
}

func TestAwaitKill(t *testing.T) {
	done := make(chan struct{})
	close(done)
	if err := AwaitKill(done, time.Second); err != nil {
		t.Fatal(err)
	}
	if err := AwaitKill(make(chan struct{}), time.Millisecond); !errors.Is(err, ErrKillTimeout) {
		t.Fatalf("stuck task: %v", err)
	}
}
