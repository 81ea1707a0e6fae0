package command

import (
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job history", jobHistoryCmd) }

func jobHistoryCmd() *cmd {
	c := &cmd{
		Name: "job history", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display a job's versions",
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		versions, _, _, err := cl.Jobs().Versions(id, false, e.query())
		if err != nil {
			return apiError("reading versions of job "+id, err)
		}
		return e.output(versions, func() error { e.historyTable(versions); return nil })
	}
	return c
}

func (e *env) historyTable(versions []*api.Job) {
	rows := [][]string{{"Version", "Stable", "Status", "Submit Date"}}
	for _, j := range versions {
		rows = append(rows, []string{
			fmt.Sprint(derefUint64(j.Version)), fmt.Sprint(derefBool(j.Stable)),
			derefStr(j.Status), e.when(time.Unix(0, derefInt64(j.SubmitTime))),
		})
	}
	writeColumns(e.stdout, rows)
}
