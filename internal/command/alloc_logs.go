package command

import (
	"flag"
	"os"
	"os/signal"

	"github.com/hashicorp/nomad/api"
)

func init() { register("alloc logs", allocLogsCmd) }

func allocLogsCmd() *cmd {
	var follow, stderr, tail, jobFlag bool
	var task string
	var lines, nbytes int64
	c := &cmd{
		Name: "alloc logs", Args: "<alloc> [<task>]", MinArgs: 1, MaxArgs: 2,
		Synopsis: "Print a task's stdout or stderr",
		Help: "The task may be omitted when the allocation has exactly one. -tail prints the end of the log " +
			"(-n lines, 10 by default, or -c bytes); -f keeps streaming. With -job the first argument is a " +
			"job ID and one of its running allocations is used.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&follow, "f", false, "Keep streaming new output.")
		fs.BoolVar(&stderr, "stderr", false, "Print stderr instead of stdout.")
		fs.StringVar(&task, "task", "", "The task (may also be given as the second argument).")
		fs.BoolVar(&tail, "tail", false, "Print the end of the log (with -n or -c; 10 lines by default).")
		fs.Int64Var(&lines, "n", -1, "With -tail, the number of lines from the end.")
		fs.Int64Var(&nbytes, "c", -1, "With -tail, the number of bytes from the end.")
		fs.BoolVar(&jobFlag, "job", false, "Treat the first argument as a job ID.")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 2 {
			task = args[1]
		}
		fetch := e.fetchAlloc
		if jobFlag {
			fetch = e.firstRunningAllocOf
		}
		a, err := fetch(args[0])
		if err != nil {
			return err
		}
		if task == "" {
			if task, err = onlyTask(a); err != nil {
				return err
			}
		}
		logType := "stdout"
		if stderr {
			logType = "stderr"
		}
		if tail || lines >= 0 || nbytes >= 0 {
			return e.tailLogs(a, task, logType, follow, lines, nbytes)
		}
		return e.streamLogs(a, task, logType, follow)
	}
	return c
}

// onlyTask picks the allocation's task when it has just one.
func onlyTask(a *api.Allocation) (string, error) {
	if len(a.TaskStates) == 1 {
		for t := range a.TaskStates {
			return t, nil
		}
	}
	return "", errorf("allocation %q has %d tasks; name one (%s)", a.ID, len(a.TaskStates), joinOr(sortedKeys(a.TaskStates), "none"))
}

// streamLogs copies log frames to stdout until the stream ends, or, with
// -f, until interrupted.
func (e *env) streamLogs(a *api.Allocation, task, logType string, follow bool) error {
	return e.copyLogs(a, task, logType, follow, api.OriginStart, 0, -1)
}

// tailLogs prints the end of a task's log: the last nbytes bytes, else
// the last lines lines (10 by default), then with follow what follows.
func (e *env) tailLogs(a *api.Allocation, task, logType string, follow bool, lines, nbytes int64) error {
	if nbytes >= 0 {
		return e.copyLogs(a, task, logType, follow, api.OriginEnd, nbytes, -1)
	}
	n := orDefault(lines, 10)
	return e.copyLogs(a, task, logType, follow, api.OriginEnd, n*256, n)
}

// copyLogs copies log frames from origin/offset to stdout until the
// stream ends or, with follow, until interrupted; with cut >= 0 the first
// read is cut to its last cut lines.
func (e *env) copyLogs(a *api.Allocation, task, logType string, follow bool, origin string, offset, cut int64) error {
	cl, _ := e.api()
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := cl.AllocFS().Logs(a, follow, task, logType, origin, offset, cancel, e.query())
	var buf []byte // without follow, everything, cut at the end
	cutting := cut >= 0
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				if cutting {
					_, err := e.stdout.Write(lastLines(buf, cut))
					return err
				}
				return nil
			}
			if len(f.Data) == 0 {
				continue
			}
			if cutting && !follow {
				buf = append(buf, f.Data...)
				continue
			}
			data := f.Data
			if cutting {
				data, cutting = lastLines(data, cut), false
			}
			if _, err := e.stdout.Write(data); err != nil {
				return err
			}
		case err := <-errs:
			return apiError("reading logs of allocation "+a.ID, err)
		case <-interrupt:
			return nil
		}
	}
}
