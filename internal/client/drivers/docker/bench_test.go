package docker

import (
	"context"
	"runtime"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

// The figures of the docker driver: time from Start to a running
// container, for an image the node has and for a ~50 MB image pulled
// from a local registry, and the client memory each running container
// costs. Run with
//
//	go test -run '^$' -bench . -benchtime 5x ./internal/client/drivers/docker/

func benchDriver(b *testing.B) drivers.Driver {
	d, err := New(map[string]any{"gc": []map[string]any{{"image": false}}}, drivers.Env{})
	if err != nil {
		b.Fatal(err)
	}
	return d
}

func benchTask(b *testing.B, image string, extra map[string]any) *drivers.TaskConfig {
	cfg := map[string]any{"image": image}
	for k, v := range extra {
		cfg[k] = v
	}
	return newTask(b, "bench", cfg)
}

func BenchmarkStart_CachedImage(b *testing.B) {
	requireImage(b)
	d := benchDriver(b)
	for b.Loop() {
		task := benchTask(b, testImage, nil)
		if _, err := d.Start(context.Background(), task); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = d.Destroy(task.ID, true)
		b.StartTimer()
	}
}

func BenchmarkStart_Pull50MB(b *testing.B) {
	reg := startRegistry(b)
	ref := reg.host + "/" + unique("drover/big") + ":v1"
	reg.push(b, ref, 50<<20)
	d := benchDriver(b)
	auth := []map[string]any{{"username": regUser, "password": regPass}}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		removeImage(reg.c, ref)
		task := benchTask(b, ref, map[string]any{"auth": auth})
		b.StartTimer()
		if _, err := d.Start(context.Background(), task); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = d.Destroy(task.ID, true)
		b.StartTimer()
	}
}

// BenchmarkMemoryPerContainer reports the Go heap and goroutines the
// driver holds for each running container (its log stream and wait).
func BenchmarkMemoryPerContainer(b *testing.B) {
	requireImage(b)
	const n = 20
	for b.Loop() {
		d := benchDriver(b)
		before, gBefore := heap(), runtime.NumGoroutine()
		var tasks []*drivers.TaskConfig
		for range n {
			task := benchTask(b, testImage, nil)
			if _, err := d.Start(context.Background(), task); err != nil {
				b.Fatal(err)
			}
			tasks = append(tasks, task)
		}
		after, gAfter := heap(), runtime.NumGoroutine()
		b.ReportMetric(float64(after-before)/n, "heap-B/container")
		b.ReportMetric(float64(gAfter-gBefore)/n, "goroutines/container")
		for _, task := range tasks {
			_ = d.Destroy(task.ID, true)
		}
	}
}

func heap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
