// Package procutil holds the Linux process plumbing shared by the rawexec
// and exec drivers: identifying a PID across restarts by its start time,
// waiting for a process that is not our child, and killing process groups.
package procutil
