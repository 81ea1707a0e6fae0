package mock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/testutil"
)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func mkTask(id string, cfg map[string]any) *drivers.TaskConfig {
	return &drivers.TaskConfig{ID: id, AllocID: "a", TaskName: id, Config: cfg}
}

// exited returns the task's result if it has one now.
func exited(t *testing.T, d *Driver, id string) *drivers.ExitResult {
	t.Helper()
	tk, err := d.tasks.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return tk.exit.Result()
}

// waitPending waits for a goroutine to arm a timer on the manual clock.
func waitPending(t *testing.T, c *clock.Manual, n int) {
	t.Helper()
	testutil.WaitFor(t, 5*time.Second, fmt.Sprintf("%d pending timers", n), func() bool { return c.Pending() >= n })
}

func TestValidateConfig(t *testing.T) {
	d := NewWithClock(nil)
	cases := []struct {
		name  string
		cfg   map[string]any
		field string
	}{
		{"valid", map[string]any{"run_for": "10s", "exit_code": 2, "kill_after": 1e9}, ""},
		{"empty is valid", map[string]any{}, ""},
		{"unknown field", map[string]any{"run_forever": true}, "run_forever"},
		{"bad duration", map[string]any{"run_for": "soon"}, "run_for"},
		{"exit_code wrong type", map[string]any{"exit_code": "2"}, "exit_code"},
		{"exit_code fractional", map[string]any{"exit_code": 2.5}, "exit_code"},
		{"oom wrong type", map[string]any{"oom_killed": "yes"}, "oom_killed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := d.ValidateConfig(tc.cfg)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ce *drivers.ConfigError
			if !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("want error naming %q, got %v", tc.field, err)
			}
		})
	}
}

func TestRunForThenExit(t *testing.T) {
	c := clock.NewManual(epoch)
	d := NewWithClock(c)
	out := filepath.Join(t.TempDir(), "stdout")
	tc := mkTask("t1", map[string]any{"run_for": "10s", "exit_code": 2, "stdout_string": "hello\n"})
	tc.StdoutPath = out
	if _, err := d.Start(context.Background(), tc); err != nil {
		t.Fatal(err)
	}
	c.Advance(9 * time.Second)
	if res := exited(t, d, "t1"); res != nil {
		t.Fatalf("exited early: %+v", res)
	}
	c.Advance(time.Second)
	if res := exited(t, d, "t1"); res == nil || res.ExitCode != 2 {
		t.Fatalf("exit = %+v", res)
	}
	if b, _ := os.ReadFile(out); string(b) != "hello\n" {
		t.Fatalf("stdout = %q", b)
	}
}

func TestStartError(t *testing.T) {
	d := NewWithClock(clock.NewManual(epoch))
	_, err := d.Start(context.Background(), mkTask("t", map[string]any{"start_error": "boom"}))
	if err == nil || err.Error() != "boom" {
		t.Fatalf("start = %v", err)
	}
}

func TestStartBlocksOnClock(t *testing.T) {
	c := clock.NewManual(epoch)
	d := NewWithClock(c)
	done := make(chan error, 1)
	go func() {
		_, err := d.Start(context.Background(), mkTask("t", map[string]any{"start_block_for": "5s"}))
		done <- err
	}()
	waitPending(t, c, 1)
	select {
	case <-done:
		t.Fatal("start returned before the clock moved")
	default:
	}
	c.Advance(5 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestStopHonoursKillAfter(t *testing.T) {
	c := clock.NewManual(epoch)
	d := NewWithClock(c)
	if _, err := d.Start(context.Background(), mkTask("t", map[string]any{"kill_after": "3s"})); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Stop("t", 10*time.Second, "SIGINT") }()
	waitPending(t, c, 1)
	c.Advance(3 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if res := exited(t, d, "t"); res == nil || res.Signal != 2 {
		t.Fatalf("exit = %+v", res)
	}
}

func TestStopKillsAtTimeout(t *testing.T) {
	c := clock.NewManual(epoch)
	d := NewWithClock(c)
	if _, err := d.Start(context.Background(), mkTask("t", map[string]any{"kill_after": "1m"})); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.Stop("t", 5*time.Second, "") }()
	waitPending(t, c, 1)
	c.Advance(5 * time.Second)
	<-done
	if res := exited(t, d, "t"); res == nil || res.Signal != 9 {
		t.Fatalf("exit = %+v", res)
	}
}

func TestSignal(t *testing.T) {
	d := NewWithClock(clock.NewManual(epoch))
	if _, err := d.Start(context.Background(), mkTask("ok", nil)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Start(context.Background(), mkTask("bad", map[string]any{"signal_error": "nope"})); err != nil {
		t.Fatal(err)
	}
	if err := d.Signal("ok", "SIGHUP"); err != nil || len(d.Signals("ok")) != 1 {
		t.Fatalf("signal = %v, got %v", err, d.Signals("ok"))
	}
	if err := d.Signal("bad", "SIGHUP"); err == nil || err.Error() != "nope" {
		t.Fatalf("signal = %v", err)
	}
	if err := d.Destroy("ok", false); !errors.Is(err, drivers.ErrTaskRunning) {
		t.Fatalf("destroy = %v", err)
	}
	if err := d.Destroy("ok", true); err != nil {
		t.Fatal(err)
	}
}

func TestRecoverResumesScript(t *testing.T) {
	c := clock.NewManual(epoch)
	d1 := NewWithClock(c)
	h, err := d1.Start(context.Background(), mkTask("t", map[string]any{"run_for": "10s", "exit_code": 4}))
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(4 * time.Second)
	d2 := NewWithClock(c)
	if err := d2.Recover(h); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, _ := d2.Wait(ctx, "t")
	c.Advance(6 * time.Second)
	if res := <-ch; res.ExitCode != 4 {
		t.Fatalf("exit = %+v", res)
	}
}

func TestFactoryUsesEnvClock(t *testing.T) {
	c := clock.NewManual(epoch)
	d, err := New(nil, drivers.Env{Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Fingerprint(context.Background()).UpdateTime; !got.Equal(epoch) {
		t.Fatalf("update time = %v", got)
	}
	if _, err := New(map[string]any{"x": 1}, drivers.Env{}); err == nil {
		t.Fatal("unknown plugin field accepted")
	}
}
