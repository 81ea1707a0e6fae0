package docker

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
)

// stallingRegistry accepts connections and never answers.
func stallingRegistry(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestPullTimeouts: a registry that never answers is given up on after
// image_pull_timeout, or after pull_activity_timeout without progress;
// the error says which, and names the image and registry.
func TestPullTimeouts(t *testing.T) {
	requireDaemon(t)
	host := stallingRegistry(t)
	image := host + "/stalled/app:v1"
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want error
	}{
		{"image_pull_timeout", map[string]any{"image_pull_timeout": "1s"}, errPullTimeout},
		{"pull_activity_timeout", map[string]any{"pull_activity_timeout": "1s"}, errPullInactive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := map[string]any{"image": image}
			for k, v := range tc.cfg {
				cfg[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := newDriver(t).Start(ctx, newTask(t, "pull", cfg))
			var pe *PullError
			if !errors.As(err, &pe) || !errors.Is(err, tc.want) || pe.Registry != host || pe.Image != image {
				t.Fatalf("start = %v, want %v naming %s", err, tc.want, host)
			}
		})
	}
}

func TestAlwaysPull(t *testing.T) {
	for image, want := range map[string]bool{
		"redis": true, "redis:latest": true, "redis:7": false, "registry.local:5000/app": true,
		"registry.local:5000/app:1.2": false, "redis@sha256:" + sha: false, "redis:7@sha256:" + sha: false,
	} {
		if got := alwaysPull(image); got != want {
			t.Errorf("alwaysPull(%q) = %v, want %v", image, got, want)
		}
	}
}

const sha = "c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2"

// TestImageGC: an image stays while any task on the node uses it, and is
// removed gc image_delay after the last one is destroyed, unless a task
// takes it again meanwhile; gc image = false keeps it.
func TestImageGC(t *testing.T) {
	requireImage(t)
	c := requireDaemon(t)
	// An image of its own: the GC removes by ID, which untags every name.
	tag := unique("drover-gc-test") + ":1"
	bin, err := os.ReadFile(serverBin)
	must(t, err)
	must(t, buildImage(c, tag, map[string][]byte{"server": bin, "gc": []byte(tag)}, ""))
	t.Cleanup(func() { removeImage(c, tag) })
	id, err := (&Driver{client: c}).imageID(context.Background(), tag)
	must(t, err)
	clk := clock.NewManual(time.Unix(1_700_000_000, 0))
	d, err := New(map[string]any{"gc": []map[string]any{{"image_delay": "1m"}}}, drivers.Env{Clock: clk})
	must(t, err)
	dd := d.(*Driver)
	run := func() *drivers.TaskConfig {
		task := newTask(t, "gc", map[string]any{"image": tag, "args": []any{"exit", "0"}})
		_, err := d.Start(context.Background(), task)
		must(t, err)
		waitExit(t, d, task.ID, 30*time.Second)
		return task
	}
	present := func() bool {
		_, err := dd.imageID(context.Background(), id)
		return err == nil
	}
	a, b := run(), run()
	if n := dd.images.count(id); n != 2 {
		t.Fatalf("users = %d, want 2", n)
	}
	must(t, d.Destroy(a.ID, true))
	clk.Advance(2 * time.Minute)
	if !present() {
		t.Fatal("image removed while a task still uses it")
	}
	must(t, d.Destroy(b.ID, true))
	clk.Advance(30 * time.Second)
	c2 := run() // taken again within the delay
	clk.Advance(2 * time.Minute)
	if !present() {
		t.Fatal("image removed though a task took it again within image_delay")
	}
	must(t, d.Destroy(c2.ID, true))
	clk.Advance(time.Minute)
	if present() {
		t.Fatal("image still present image_delay after its last task")
	}
}
