// Package mock is an in-memory driver for tests and the simulator: tasks
// are timers on an injected clock.Clock, scripted by their config, so a
// test drives them with a manual clock and nothing real runs.
//
// Task config:
//
//	run_for         duration  exit after this long; 0 runs until stopped
//	exit_code       int       exit code when run_for elapses
//	exit_signal     int       signal reported when run_for elapses
//	exit_err_msg    string    ExitResult.Err when run_for elapses
//	oom_killed      bool      report an OOM kill when run_for elapses
//	start_error     string    Start fails with this message
//	start_block_for duration  Start blocks this long first
//	kill_after      duration  how long the task takes to die after Stop's
//	                          signal; at or beyond Stop's timeout it is SIGKILLed
//	signal_error    string    Signal fails with this message
//	stdout_string   string    written to the stdout log at start
package mock
