package ui_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// BenchmarkJobsPage_1000Jobs loads /ui/jobs in headless Chromium against
// a server holding 1,000 jobs and reports the bytes transferred (the
// page, its modules and the API replies: the Resource Timing
// transferSize of every request made before the first render, the event
// stream excluded) and the time from navigation to the first render of
// the page (the performance mark main.js sets).
//
//	go test -run '^$' -bench JobsPage_1000Jobs -benchtime 5x ./internal/ui/
func BenchmarkJobsPage_1000Jobs(b *testing.B) {
	path := chromiumPath()
	if path == "" {
		b.Skip("chromium not installed")
	}
	a := agenttest.Start(b, nil, func(cfg *config.Config) { cfg.DataDir = b.TempDir(); cfg.Client.Enabled = false })
	c := agenttest.Client(b, a)
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < 1000; i += 8 {
				if _, _, err := c.Jobs().Register(mockJob(fmt.Sprintf("job-%04d", i), 1, ""), nil); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	if jobs, _, err := c.Jobs().List(&api.QueryOptions{Namespace: "*"}); err != nil || len(jobs) != 1000 {
		b.Fatalf("%d jobs: %v", len(jobs), err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(b.Context(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	url := "http://" + a.HTTPAddr() + "/ui/jobs"
	var totalBytes, totalMS float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var m struct {
			Bytes float64 `json:"bytes"`
			MS    float64 `json:"ms"`
		}
		err := chromedp.Run(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url),
			chromedp.WaitVisible("main table", chromedp.ByQuery),
			chromedp.Poll(`(() => { const r = performance.getEntriesByName('drover:first-render')[0]; if (!r) return null;
				const nav = performance.getEntriesByType('navigation')[0];
				const res = performance.getEntriesByType('resource').filter(e => e.startTime <= r.startTime && !e.name.includes('/v1/event/stream'));
				return { ms: r.startTime, bytes: nav.transferSize + res.reduce((n, e) => n + e.transferSize, 0) }; })()`, &m,
				chromedp.WithPollingTimeout(30*time.Second)))
		if err != nil {
			b.Fatal(err)
		}
		totalBytes += m.Bytes
		totalMS += m.MS
	}
	b.ReportMetric(totalBytes/float64(b.N), "bytes/page")
	b.ReportMetric(totalMS/float64(b.N), "ms/first-render")
}
