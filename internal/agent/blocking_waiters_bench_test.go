package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/agent/config"
)

// processCPU is the CPU time (user + system) this process has used: the
// in-process agent and the benchmark's clients together.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// idleCPU is the process's CPU per second of wall time over window.
func idleCPU(b *testing.B, window time.Duration) float64 {
	start, t0 := processCPU(b), time.Now()
	time.Sleep(window)
	return float64(processCPU(b)-start) / float64(time.Millisecond) / time.Since(t0).Seconds()
}

// BenchmarkBlockingJobWaiters measures 1,000 HTTP clients each blocking on
// a different job (GET /v1/job/:id?index=N) against a dev agent:
//
//   - idle-cpu-ms/s: the process's CPU per second while nothing changes,
//     without the waiters (baseline: raft, leader duties) and with them;
//     the difference is what the waiters cost.
//   - per write (one op = one job's new version registered through the
//     API): write-to-wake latency of that job's waiter, the CPU of the
//     write with its wake-up, and how many other waiters woke (woken-other
//     must be 0: a write wakes only the waiters of what it changed).
//
// go test ./internal/agent -run XXX -bench BlockingJobWaiters -benchtime 50x
func BenchmarkBlockingJobWaiters(b *testing.B) {
	const waiters = 1000
	a, c := testAgent(b, func(cfg *config.Config) { cfg.Limits.HTTPMaxConnsPerClient = 0 })
	base := "http://" + a.HTTPAddr()
	index := make([]uint64, waiters)
	for i := range waiters {
		if _, _, err := c.Jobs().Register(testAPIJob(fmt.Sprintf("w-%04d", i)), nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := range waiters {
		j, _, err := c.Jobs().Info(fmt.Sprintf("w-%04d", i), nil)
		if err != nil {
			b.Fatal(err)
		}
		index[i] = *j.JobModifyIndex
	}
	baseline := idleCPU(b, 3*time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: waiters, DisableCompression: true}}
	type wake struct {
		i     int
		index uint64
		at    time.Time
		err   error
	}
	woke := make(chan wake, 2*waiters)
	arm := func(i int, idx uint64) {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/job/w-%04d?index=%d&wait=10m", base, i, idx), nil)
			resp, err := client.Do(req)
			if err != nil {
				woke <- wake{i: i, err: err}
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			n, _ := strconv.ParseUint(resp.Header.Get("X-Nomad-Index"), 10, 64)
			woke <- wake{i: i, index: n, at: time.Now()}
		}()
	}
	for i := range waiters {
		arm(i, index[i])
	}
	time.Sleep(3 * time.Second) // every waiter connected and blocked
	select {
	case w := <-woke:
		b.Fatalf("waiter %d returned with nothing changed: %+v", w.i, w)
	default:
	}
	withWaiters := idleCPU(b, 3*time.Second)

	others := 0
	var latency, cpu time.Duration
	b.ResetTimer()
	for n := range b.N {
		i := n % waiters
		job := testAPIJob(fmt.Sprintf("w-%04d", i))
		job.Meta = map[string]string{"round": strconv.Itoa(n)}
		cpu0, t0 := processCPU(b), time.Now()
		if _, _, err := c.Jobs().Register(job, nil); err != nil {
			b.Fatal(err)
		}
		for {
			w := <-woke
			if w.err != nil {
				b.Fatalf("waiter %d: %v", w.i, w.err)
			}
			if w.i != i {
				others++
				arm(w.i, w.index)
				continue
			}
			latency += w.at.Sub(t0)
			cpu += processCPU(b) - cpu0
			arm(i, w.index)
			break
		}
	}
	b.StopTimer()
	time.Sleep(200 * time.Millisecond) // late wakes of other waiters count too
drain:
	for {
		select {
		case w := <-woke:
			if w.err == nil {
				others++
			}
		default:
			break drain
		}
	}
	b.ReportMetric(baseline, "idle-cpu-ms/s-baseline")
	b.ReportMetric(withWaiters, "idle-cpu-ms/s-1000-waiters")
	b.ReportMetric(float64(latency.Microseconds())/1000/float64(b.N), "write-to-wake-ms")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/write")
	b.ReportMetric(float64(others)/float64(b.N), "woken-other/write")
}
