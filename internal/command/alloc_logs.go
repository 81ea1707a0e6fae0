package command

import (
	"flag"
	"os"
	"os/signal"

	"github.com/hashicorp/nomad/api"
)

func init() { register("alloc logs", allocLogsCmd) }

func allocLogsCmd() *cmd {
	var follow, stderr bool
	var task string
	c := &cmd{
		Name: "alloc logs", Args: "<alloc> [<task>]", MinArgs: 1, MaxArgs: 2,
		Synopsis: "Print a task's stdout or stderr",
		Help:     "The task may be omitted when the allocation has exactly one.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&follow, "f", false, "Keep streaming new output.")
		fs.BoolVar(&stderr, "stderr", false, "Print stderr instead of stdout.")
		fs.StringVar(&task, "task", "", "The task (may also be given as the second argument).")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 2 {
			task = args[1]
		}
		a, err := e.fetchAlloc(args[0])
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
	cl, _ := e.api()
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := cl.AllocFS().Logs(a, follow, task, logType, "start", 0, cancel, e.query())
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return nil
			}
			if _, err := e.stdout.Write(f.Data); err != nil {
				return err
			}
		case err := <-errs:
			return apiError("reading logs of allocation "+a.ID, err)
		case <-interrupt:
			return nil
		}
	}
}
