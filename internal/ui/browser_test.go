package ui_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent"
	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/sim"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
	"github.com/drover-project/drover/internal/testutil/agenttest"
)

// The browser tests load every page in headless Chromium against a real
// in-process agent and check what a person would see. One browser serves
// every page; a screenshot of each lands in artifactDir() (outside the
// repo) for a look.

// chromiumPath finds a Chromium binary, or "" when there is none.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium tab that records console errors. One
// browser serves every test of the package (sharedBrowser): starting
// Chromium is the slow part.
type browser struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	allow403 bool
	allow404 bool
}

var (
	shared     *browser
	sharedErr  string
	sharedOnce sync.Once
	stopShared = func() {}
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopShared()
	os.Exit(code)
}

// newBrowser answers the package's browser, bound to t; it skips t where
// Chromium is missing.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	sharedOnce.Do(startBrowser)
	if sharedErr != "" {
		t.Skip(sharedErr)
	}
	shared.mu.Lock()
	shared.t = t
	shared.errors = nil
	shared.mu.Unlock()
	t.Cleanup(func() {
		// Leave a blank page, so the next test's agent does not get this
		// page's event stream.
		_ = chromedp.Run(shared.ctx, chromedp.Navigate("about:blank"))
	})
	return shared
}

func startBrowser() {
	path := chromiumPath()
	if path == "" {
		sharedErr = "chromium not installed (Debian package `chromium`; scripts/check installs it): skipping browser tests"
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1400, 1000))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	stopShared = func() { cancel(); cancelAlloc() }
	b := &browser{ctx: ctx}
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.addError("exception: " + e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value))
				}
				b.addError("console.error: " + strings.Join(args, " "))
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError && !b.expected(e.Entry.Text, e.Entry.URL) {
				b.addError(fmt.Sprintf("log: %s (%s)", e.Entry.Text, e.Entry.URL))
			}
		}
	})
	if err := chromedp.Run(ctx, cdplog.Enable(), runtime.Enable()); err != nil {
		sharedErr = fmt.Sprintf("start chromium: %v", err)
		return
	}
	shared = b
}

// expected tells the failed requests a page makes on purpose from
// errors: a 403 shown to a limited token (where the test allows it), and
// the job source of a job registered as JSON, which has none (404, as in
// Nomad; the page shows the JSON then).
func (b *browser) expected(text, url string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if strings.Contains(text, "404") && (b.allow404 || strings.Contains(url, "/submission?")) {
		return true
	}
	return b.allow403 && strings.Contains(text, "403")
}

func (b *browser) addError(s string) {
	b.mu.Lock()
	b.errors = append(b.errors, s)
	b.mu.Unlock()
}

// checkNoErrors fails on any console error since the last check.
func (b *browser) checkNoErrors(page string) {
	b.t.Helper()
	b.mu.Lock()
	errs := b.errors
	b.errors = nil
	b.mu.Unlock()
	for _, e := range errs {
		b.t.Errorf("%s: %s", page, e)
	}
}

func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// text is the page's visible text (the action outcome line included).
func (b *browser) text() string {
	var s, flash string
	b.run("read text", chromedp.Text("main", &s, chromedp.ByQuery), chromedp.Evaluate(`document.getElementById('flash').innerText`, &flash))
	return flash + "\n" + s
}

// waitText waits until the page shows every string in want.
func (b *browser) waitText(page string, want ...string) string {
	b.t.Helper()
	var got string
	testutil.WaitFor(b.t, 20*time.Second, page+" to show "+strings.Join(want, ", "), func() (bool, string) {
		got = b.text()
		for _, w := range want {
			if !strings.Contains(got, w) {
				return false, fmt.Sprintf("no %q in:\n%s", w, got)
			}
		}
		return true, ""
	})
	return got
}

// visit loads a page, waits for its content and saves a screenshot.
func (b *browser) visit(base, path string, want ...string) string {
	b.t.Helper()
	b.run("navigate "+path, chromedp.Navigate(base+path))
	text := b.waitText(path, want...)
	b.screenshot(path)
	b.checkNoErrors(path)
	b.checkAccessible(path)
	return text
}

// checkAccessible fails on a field without a label and on a control
// that the keyboard cannot reach (a click handler on something that is
// not a link, button or field, or a negative tabindex).
func (b *browser) checkAccessible(page string) {
	b.t.Helper()
	var bad []string
	b.run("accessibility", chromedp.Evaluate(`[
		...[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
			.filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
			.map(el => 'unlabelled ' + el.tagName.toLowerCase() + '#' + el.id + '[name=' + el.name + ']'),
		...[...document.querySelectorAll('button, a[href], input, select, textarea')]
			.filter(el => el.tabIndex < 0)
			.map(el => 'not reachable by keyboard: ' + el.outerHTML.slice(0, 80)),
	]`, &bad))
	for _, m := range bad {
		b.t.Errorf("%s: %s", page, m)
	}
}

// click clicks the element sel names (CSS), waiting for it to be there.
//
// A live page re-renders when the cluster changes (a drain's progress, say):
// if the button found is replaced before the click lands, the browser
// answers "Could not find node with given id" and nothing was clicked, so
// the click is tried again on the new button.
func (b *browser) click(sel string) {
	b.t.Helper()
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
		err := chromedp.Run(ctx, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.Click(sel, chromedp.ByQuery))
		cancel()
		if err == nil {
			return
		}
		if attempt >= 5 || !strings.Contains(err.Error(), "Could not find node with given id") {
			b.t.Fatalf("click %s: %v", sel, err)
		}
	}
}

// confirm clicks a two-step button: once to arm it, once to act.
// A live re-render (an event for the page) can replace the button between
// the click and the arming, so arming is retried, as click retries.
func (b *browser) confirm(sel string) {
	b.t.Helper()
	for attempt := 1; ; attempt++ {
		b.click(sel)
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		err := chromedp.Run(ctx, chromedp.WaitVisible(sel+".armed", chromedp.ByQuery))
		cancel()
		if err == nil {
			break
		}
		if attempt >= 4 {
			b.t.Fatalf("armed %s: %v", sel, err)
		}
	}
	b.click(sel + ".armed")
}

// fill sets a field's value (SetValue, then an input event for listeners).
func (b *browser) fill(sel, value string) {
	b.t.Helper()
	b.run("fill "+sel, chromedp.WaitVisible(sel, chromedp.ByQuery), chromedp.SetValue(sel, value, chromedp.ByQuery))
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// artifactDir is where screenshots go: $DROVER_UI_ARTIFACTS, else a
// directory under the system's temp dir (never the repo).
func artifactDir() string {
	if d := os.Getenv("DROVER_UI_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "drover-ui-screenshots")
}

func (b *browser) screenshot(path string) {
	var png []byte
	b.run("screenshot", chromedp.FullScreenshot(&png, 100)) // quality 100 gives a PNG
	dir := artifactDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	page := uuidRE.ReplaceAllString(strings.Trim(strings.SplitN(path, "?", 2)[0], "/"), "ID")
	clean := strings.NewReplacer("/", "_", "@", "_", " ", "_", "(", "", ")", "")
	name := clean.Replace(b.t.Name()) + "_" + clean.Replace(page) + ".png"
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func startAgent(t *testing.T) (*agent.Agent, *api.Client) {
	t.Helper()
	a := agenttest.Start(t, nil, func(cfg *config.Config) { cfg.DataDir = t.TempDir() })
	return a, agenttest.Client(t, a)
}

func mockJob(id string, count int, stdout string) *api.Job {
	job := api.NewServiceJob(id, id, "global", 50)
	job.Datacenters = []string{"*"}
	task := api.NewTask("server", "mock")
	task.Config = map[string]any{"run_for": "0s", "stdout_string": stdout}
	task.Require(&api.Resources{CPU: ptr(100), MemoryMB: ptr(64)})
	job.AddTaskGroup(api.NewTaskGroup("web", count).AddTask(task))
	return job
}

func ptr[T any](v T) *T { return &v }

// waitRunning waits until the job has n running allocs and returns them.
func waitRunning(t *testing.T, c *api.Client, id string, n int) []*api.AllocationListStub {
	t.Helper()
	return waitRunningVersion(t, c, id, n, -1)
}

// waitRunningVersion is waitRunning counting only allocs of the job's
// version (any with version < 0): right after an update, the old
// version's allocs still run until the deployment replaces them.
func waitRunningVersion(t *testing.T, c *api.Client, id string, n int, version int) []*api.AllocationListStub {
	t.Helper()
	var running []*api.AllocationListStub
	// Generous: on 2 cores the whole suite runs beside this test.
	testutil.WaitFor(t, 60*time.Second, fmt.Sprintf("%d running allocs of %s", n, id), func() bool {
		stubs, _, err := c.Jobs().Allocations(id, false, nil)
		running = running[:0]
		for _, s := range stubs {
			if s.ClientStatus == api.AllocClientStatusRunning && s.DesiredStatus == api.AllocDesiredStatusRun &&
				(version < 0 || s.JobVersion == uint64(version)) {
				running = append(running, s)
			}
		}
		return err == nil && len(running) >= n
	})
	return running
}

// TestBrowser_EvalChainOfTheMissedHeartbeat renders design.md's first
// example from a simulator run: a node misses its heartbeat and 6 evals
// follow across 3 jobs. Starting from one node-update eval, the page must
// draw all 6 with their pointer links and the node event that wrote the
// three node-update evals (which no pointer connects).
func TestBrowser_EvalChainOfTheMissedHeartbeat(t *testing.T) {
	b := newBrowser(t)
	sc, err := sim.LoadScenario(filepath.Join("..", "sim", "testdata", "scenarios", "seed-heartbeat-six-evals.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(sc.Seed, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Play(sc)
	if err != nil || !res.Passed() {
		t.Fatalf("scenario: %v %v", err, res.Failures)
	}
	api := agent.NewHTTPServer(s.Server(), nil, agent.AgentInfo{Name: "sim"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var tokens sync.Map // X-Nomad-Token values the API received
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok := r.Header.Get("X-Nomad-Token"); tok != "" {
			tokens.Store(tok, true)
		}
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { api.CloseStreams(); srv.Close() })

	evals, err := s.Server().State().EvalsByJob(nil, structs.DefaultNamespace, "spread")
	if err != nil {
		t.Fatal(err)
	}
	var start string
	for _, e := range evals {
		if e.TriggeredBy == structs.EvalTriggerNodeUpdate && e.Status == structs.EvalStatusFailed {
			start = e.ID
		}
	}
	if start == "" {
		t.Fatal("no failed node-update eval of spread in the scenario")
	}
	b.visit(srv.URL, "/ui/evaluations/"+start, "Chain", "node-update", "queued-allocs", "max-plan-attempts", "failed-follow-up",
		"leader: failed-eval reaper", "scheduler: blocked on capacity")

	var nodes, causes int
	var kinds []string
	b.run("inspect graph",
		chromedp.Evaluate(`document.querySelectorAll('svg.chain g.eval-node[data-eval]').length`, &nodes),
		chromedp.Evaluate(`document.querySelectorAll('svg.chain g.eval-node.cause').length`, &causes),
		chromedp.Evaluate(`[...document.querySelectorAll('svg.chain path.edge')].map(p => p.dataset.kinds)`, &kinds))
	if nodes != 6 {
		t.Errorf("graph draws %d evals, want the scenario's 6", nodes)
	}
	if causes != 1 {
		t.Errorf("graph draws %d node-event causes, want 1", causes)
	}
	// One edge carries both pointers of the failed-follow-up (new.PreviousEval
	// and old.NextEval), two the blocked evals' (BlockedEval and
	// PreviousEval), three the inferred node-event links.
	count := map[string]int{}
	for _, k := range kinds {
		fields := strings.Fields(k)
		sort.Strings(fields)
		count[strings.Join(fields, "+")]++
	}
	want := map[string]int{"next+previous": 1, "blocked+previous": 2, "inferred": 3}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("edges by kind %v, want %v", count, want)
	}
	if t.Failed() {
		var html string
		b.run("dump", chromedp.OuterHTML("svg.chain", &html, chromedp.ByQuery))
		t.Log(html)
	}
	b.checkNoErrors("eval chain")

	// The token typed in the header is kept and sent with every request.
	b.run("save a token",
		chromedp.SendKeys("#token", "secret-token", chromedp.ByQuery),
		chromedp.Click(`#token-form button`, chromedp.ByQuery))
	testutil.WaitFor(t, 10*time.Second, "a request with the saved token", func() bool {
		_, ok := tokens.Load("secret-token")
		return ok
	})
	var stored string
	b.run("read localStorage", chromedp.Evaluate(`localStorage.getItem('drover.token')`, &stored))
	if stored != "secret-token" {
		t.Errorf("localStorage holds %q, want the token", stored)
	}
	b.checkNoErrors("token")
}
