package command

import (
	"flag"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job history", jobHistoryCmd) }

func jobHistoryCmd() *cmd {
	var diffs bool
	c := &cmd{
		Name: "job history", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display a job's versions",
		Help: "Lists the versions the agent keeps, newest first. With -p each version\n" +
			"is shown with what it changed from the version before it.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&diffs, "p", false, "Show each version's changes from the previous one.")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		versions, changes, _, err := cl.Jobs().Versions(id, diffs, e.query())
		if err != nil {
			return apiError("reading versions of job "+id, err)
		}
		if !diffs {
			return e.output(versions, func() error { e.historyTable(versions); return nil })
		}
		resp := &api.JobVersionsResponse{Versions: versions, Diffs: changes}
		return e.output(resp, func() error { e.historyDiffs(versions, changes); return nil })
	}
	return c
}

func (e *env) historyTable(versions []*api.Job) {
	tagged := false
	for _, j := range versions {
		tagged = tagged || j.VersionTag != nil
	}
	header := []string{"Version", "Stable", "Status", "Submit Date"}
	if tagged {
		header = append(header, "Tag Name", "Tag Description")
	}
	rows := [][]string{header}
	for _, j := range versions {
		row := []string{
			fmt.Sprint(derefUint64(j.Version)), fmt.Sprint(derefBool(j.Stable)),
			derefStr(j.Status), e.when(time.Unix(0, derefInt64(j.SubmitTime))),
		}
		if tagged {
			name, desc := "", ""
			if j.VersionTag != nil {
				name, desc = j.VersionTag.Name, j.VersionTag.Description
			}
			row = append(row, name, desc)
		}
		rows = append(rows, row)
	}
	writeColumns(e.stdout, rows)
}

// historyDiffs prints one block per version, newest first, as Nomad's
// `job history -p` does. Versions come newest first and Diffs[i] is what
// version i changed from version i+1; the oldest version has no diff.
func (e *env) historyDiffs(versions []*api.Job, diffs []*api.JobDiff) {
	for i, j := range versions {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		kv := [][2]string{
			{"Version", fmt.Sprint(derefUint64(j.Version))}, {"Stable", fmt.Sprint(derefBool(j.Stable))},
			{"Submit Date", e.when(time.Unix(0, derefInt64(j.SubmitTime)))},
		}
		if i < len(diffs) && diffs[i] != nil {
			writeKV(e.stdout, append(kv, [2]string{"Diff", ""}))
			e.printJobDiff(diffs[i])
			continue
		}
		writeKV(e.stdout, kv)
	}
}
