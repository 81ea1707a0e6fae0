// Package allocrunner runs one allocation on the client: it lays out the
// alloc's directories, runs a task runner per task in lifecycle order
// (prestart, main, poststart, poststop), kills the tasks when the server
// stops the alloc or a task fails, derives the alloc's client status from
// its tasks, decides its deployment health, and reports every change
// through a callback the client batches to the servers.
//
// # Deployment health and checks
//
// With health_check = "checks" (the default), an alloc is healthy once all
// its tasks run and every service check (package client/checks, on the
// injected clock) has passed without a break for min_healthy_time; with
// task_states (or no runnable checks) the tasks alone; it is unhealthy if a
// task fails or healthy_deadline passes first. The settings are the
// update block's in a deployment; a service alloc outside one is judged by
// its migrate block (Nomad's defaults when absent), as in Nomad, since the
// node drainer waits for a replacement's health. Check types: http, tcp,
// script (the command runs inside the task through the driver's exec, as
// alloc exec does; exit 0 passes, 1 warns, else fails) and grpc
// (grpc.health.v1 Health/Check made by hand over net/http's HTTP/2, h2c or
// TLS, with protowire: no gRPC library in the binary; the test talks to
// grpc-go's own health server). Results set each service registration's
// Health (passing / warning / critical, served as an extra field of
// /v1/service/:name), and check_restart { limit grace ignore_warnings }
// restarts the check's task (a group service's: its task) after limit
// failing runs in a row outside the grace, counting against the restart
// policy (taskrunner's RestartUnhealthy). check_restart of a group service
// without task is not acted on. A check's on_update weighs it in health
// (checks.ForDeployment: "ignore" leaves it out, "ignore_warnings" passes
// its warnings). A service advertises its canary_tags while the alloc is
// an unpromoted canary (promotion clears the server's canary mark).
//
// # Sticky disks and max_run_duration
//
// With ephemeral_disk { sticky } (or migrate), the client hands a
// replacement on the same node the alloc it replaces (sticky.go): before
// any task starts, the runner waits for the previous alloc's tasks to die
// and moves its alloc/data and each task's local/ into the new tree (the
// scheduler places the replacement on the previous node when it fits).
// With migrate and a previous alloc on another node, the runner runs the
// PreviousAlloc's Fetch instead (the client's migrate.go: wait for the
// previous alloc to stop, download its snapshot from that node's agent,
// unpack and move it in); a failure is logged and the tasks start on
// empty dirs. A batch
// or sysbatch group's max_run_duration (max_run.go) stops the alloc that
// long after its runner started and reports it complete with "allocation
// exceeded max_run_duration", as Nomad does.
//
// # Stopping and shutdown_delay
//
// A stop (the server's, a failed task, a dead leader, the main tasks
// done) follows Nomad's order (shutdown_delay.go, lifecycle.go's
// stepStopping): the group's native services leave the catalog, the
// group's shutdown_delay passes on the injected clock (a timer that wakes
// the loop; no task event, as in Nomad; none when no task runs), then each
// task loses its own services and is killed, its task runner first waiting
// out the task's shutdown_delay with a "Waiting for shutdown delay" event.
// DesiredTransition.NoShutdownDelay (`alloc stop -no-shutdown-delay`)
// skips both, also once they run; Destroy and StopNow (a dev client going
// away) skip them; Shutdown (a client restart) leaves the tasks running
// and waits for nothing.
package allocrunner
