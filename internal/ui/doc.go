// Package ui is Drover's web UI: a few hand-written pages (HTML, CSS and
// JavaScript embedded in the binary with go:embed, no build step, no CDN,
// works offline) that read the /v1 API and follow the event stream for live
// updates. The agent serves it at /ui/ (internal/agent/ui_http.go; / and /ui
// redirect there). Every /ui/ path answers the same page; the script routes
// on the URL, so the URLs are Nomad's and links from the CLI land.
//
// Pages: /ui/jobs, /ui/jobs/<id>@<namespace> (groups with summary counts,
// allocations, deployments, evaluations, versions with their diffs from
// versions?diffs=true), /ui/allocations/<id> (task states and events, live
// logs from /v1/client/fs/logs?follow=true&plain=true), /ui/clients,
// /ui/clients/<id> (allocations, allocated CPU/memory, attributes, events),
// /ui/servers (raft configuration), /ui/topology (every node's allocated CPU
// and memory and its allocs), /ui/evaluations and /ui/evaluations/<id>. The
// eval page draws the chain as an SVG graph: the evals reachable through
// pointers (related=true), plus the links no pointer records, drawn dotted:
// the node event that wrote several node-update evals (same node, same
// CreateIndex), deployment-watcher evals of the same job version (same
// JobModifyIndex), and both sides of a preemption (the preemption eval
// shares its index with the allocs the preempting plan placed). Each eval
// shows its trigger, the component that creates evals of that trigger, its
// status and its timeline with the time spent in each step. Pages re-render
// when the event stream (one fetch of /v1/event/stream, resumed after the
// highest index the page loaded) reports a change to what they show. An ACL
// token typed in the header is kept in localStorage and sent as
// X-Nomad-Token; the static files themselves are public.
//
// browser_test.go drives headless Chromium (chromedp; skipped with a message
// where the chromium package is missing): every page against an in-process
// agent running mock-driver jobs, a job registered after the page loaded
// appearing without a reload, no console errors or failed requests, and
// design.md's missed-heartbeat example (6 evals over 3 jobs) from a
// simulator run drawn with its blocked, previous/next and node-event links.
// Screenshots go to testdata/out/ (gitignored).
package ui
