// Package drivers defines the task driver interface the client's task
// runners program against, the types that cross it (TaskConfig, TaskHandle,
// ExitResult, TaskStats), a strict decoder for task and plugin config, and
// a Registry of drivers built from the agent's plugin blocks.
//
// Concrete drivers live in subpackages (rawexec, exec, docker, mock); the
// builtin package wires them into a Registry. Drivers never import the
// server side: they see only structs, clock and this package.
//
// Logs: a driver writes the task's stdout and stderr to
// TaskConfig.StdoutPath / StderrPath, opening them for append. The paths
// may be regular files or FIFOs: a runner that wants rotation creates
// FIFOs, opens them for reading first (opening a FIFO for writing blocks
// until a reader exists) and copies into its rotating writer.
//
// # The drivers
//
// One Driver interface: fingerprint, validate config strictly, start, wait,
// stop with signal and timeout, signal, destroy, recover after a client
// restart, stats. raw_exec (off unless enabled, or -dev; package rawexec),
// exec (isolated; package exec), docker (a small Engine API client over the
// unix socket; host access only when allowed; package docker), mock
// (scripted on the injected clock; package mock). Drivers that can run
// commands inside a task implement Execer (alloc exec, script checks,
// template change scripts, task actions): raw_exec runs the command with the
// task process's environment (/proc/PID/environ) and working directory; exec
// and docker as their packages say. The fingerprint (package
// client/fingerprint) reports Nomad's attribute names and the node's
// resources.
package drivers
