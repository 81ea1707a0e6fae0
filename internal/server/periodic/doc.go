// Package periodic holds the pure parts of the periodic dispatcher: when a
// periodic job launches next (cron, time zone aware), and the child job a
// launch registers (parent/periodic-<unix>). The leader's periodic-dispatch
// duty (package server/leader) decides when to launch: it counts from the
// submit time and skips existing children, so a leader change neither loses
// nor repeats a launch; after missed launches only the latest one runs;
// prohibit_overlap holds a launch while a child lives.
package periodic
