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
package drivers
