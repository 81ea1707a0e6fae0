// Package ui is Drover's web UI: hand-written HTML, CSS and JavaScript
// modules embedded in the binary with go:embed. No build step, no CDN,
// nothing fetched at run time; it works offline. The agent serves it at
// /ui/ (internal/agent/ui_http.go; / and /ui redirect there): files from
// /ui/assets/, and the page shell (index.html) for every other /ui/ path.
//
// assets/js/main.js is the shell: it routes on the URL (routes.js holds
// Nomad's UI URLs, so bookmarks and links from Nomad tooling land), loads
// the page's module (pages/<page>.js, one file per page, with import()
// when first shown, so the jobs page loads only what it needs), renders
// it, and re-renders when the event stream (one fetch of
// /v1/event/stream, resumed after the highest index the page loaded)
// reports a change to what the page shows. Job links are always
// <id>@<namespace>, so no job name can take a route's place
// (/ui/jobs/run is the run page, /ui/jobs/run@default a job called run);
// an unknown path gets a 404 page naming it. lib/ holds what pages
// share: the API (api.js), what the saved token may do (acl.js, from
// /v1/acl/token/self and its policies' rules, to hide or disable the
// controls it cannot use; the server still decides, and a 403 is shown
// as such), placement failures in words (placement.js: an eval's
// FailedTGAllocs per group, node classes as the operator named them),
// the eval chain graph (evalgraph.js: pointer links, plus the links no
// pointer records: the node event behind node-update evals, the evals of
// one deployment by DeploymentID with the register eval that wrote its
// version, both sides of a preemption), the log viewer (logs.js: opens at
// the last 50,000 bytes, follows, pages back on scroll across rotated
// files, and holds at most 200,000 characters), resource charts
// (stats.js: client stats polled into a fixed ring, drawn as inline SVG),
// the job editor (editor.js: HCL parsed by /v1/jobs/parse, planned with
// its diff and placement failures, then run).
//
// Actions are buttons and forms with data-action: main.js runs the page's
// handler, asks a second click first where Nomad asks for a confirmation
// (data-confirm), shows the outcome or the error above the page, and
// re-renders. A refresh waits while a field is focused or a confirmation
// armed, so live updates never redraw under the operator's hands.
//
// The exec terminal is xterm.js from Debian's node-xterm/libjs-xterm
// packages (MIT), bundled into assets/vendor/xterm/ by scripts/vendor-xterm
// and committed with its licence, so `go build` needs neither.
//
// The browser tests drive headless Chromium (chromedp; skipped with a
// message where chromium is missing; scripts/check installs it), one
// browser for the package: every page against an in-process agent
// (browser_pages_test.go), every action by clicking with its effect
// checked through the API, exec included (browser_actions_test.go), ACLs
// on with no token, a management token and a read-only one
// (browser_acl_test.go), the log viewer on a 1.3 MB log and a task that
// keeps writing (browser_logs_test.go), and design.md's missed-heartbeat
// eval chain from a simulator run (browser_test.go). Each visited page is
// checked for console errors, unlabelled fields and controls the keyboard
// cannot reach; its screenshot goes to $DROVER_UI_ARTIFACTS (default: a
// directory under the system temp dir). BenchmarkJobsPage_1000Jobs
// measures the jobs page's bytes and time to first render on 1,000 jobs.
package ui
