package ui_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/drover-project/drover/internal/testutil"
)

// logState is what the log viewer holds.
type logState struct {
	Held     int    `json:"held"`
	Received int    `json:"received"`
	First    string `json:"first"`
	Last     string `json:"last"`
}

func (b *browser) logState() logState {
	var s logState
	b.run("log state", chromedp.Evaluate(`(() => { const p = document.getElementById('log'); const lines = p.textContent.split('\n').filter(Boolean);
		return { held: p.textContent.length, received: Number(p.dataset.received || 0), first: lines[1] || '', last: lines[lines.length - 1] || '' }; })()`, &s))
	return s
}

// TestBrowser_LogViewer: a 1.3 MB log opens at its end (the last 50,000
// bytes, not from byte 0), scrolling to the top reads the 50,000 before,
// and a task that keeps writing is followed with the page holding a
// bounded amount.
func TestBrowser_LogViewer(t *testing.T) {
	b := newBrowser(t)
	ag, c := startAgent(t)
	a := "http://" + ag.HTTPAddr()
	register(t, c, shellJob("biglog", "seq 1 200000; while true; do sleep 1; done"))
	register(t, c, shellJob("chatty", "while true; do seq 1 3000; sleep 0.05; done"))
	big := waitRunning(t, c, "biglog", 1)[0]
	chatty := waitRunning(t, c, "chatty", 1)[0]

	b.visit(a, "/ui/allocations/"+big.ID+"/sh/logs", "200000")
	var s logState
	testutil.WaitFor(t, 10*time.Second, "the tail of the log", func() (bool, string) {
		s = b.logState()
		return s.Last == "200000", fmt.Sprint(s)
	})
	first, _ := strconv.Atoi(s.First)
	if s.Held > 50000 || first < 190000 {
		t.Fatalf("opened with %d characters from line %q; want at most the last 50,000 (1.3 MB log)", s.Held, s.First)
	}
	b.run("scroll to the top", chromedp.Evaluate(`(() => { const p = document.getElementById('log'); p.scrollTop = 0; p.dispatchEvent(new Event('scroll')); })()`, nil))
	testutil.WaitFor(t, 10*time.Second, "the 50,000 bytes before", func() (bool, string) {
		s = b.logState()
		n, _ := strconv.Atoi(s.First)
		return s.Held > 90000 && n < first-5000 && s.Last == "200000", fmt.Sprint(s)
	})
	b.screenshot("/ui/allocations/ID/sh/logs (paged back)")

	b.visit(a, "/ui/allocations/"+chatty.ID+"/sh/logs", "3000")
	testutil.WaitFor(t, 60*time.Second, "1 MB followed", func() (bool, string) {
		s = b.logState()
		return s.Received > 1<<20, fmt.Sprint(s)
	})
	if s.Held > 200000+64<<10 {
		t.Errorf("after following %d characters the page holds %d; want at most 200,000 and a chunk", s.Received, s.Held)
	}
	b.checkNoErrors("logs")
}
