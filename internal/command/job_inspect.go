package command

import (
	"flag"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job inspect", jobInspectCmd) }

func jobInspectCmd() *cmd {
	var version optUint
	c := &cmd{
		Name: "job inspect", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Print a job as JSON, ready for `job run`",
		Help:     "Prints {\"Job\": ...}, which `drover job run` accepts back.\nWith -t the template sees the job itself.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&version, "version", "Inspect this version of the job instead of the current one.")
	}
	c.Run = func(e *env, args []string) error {
		job, err := e.inspectJob(args[0], version)
		if err != nil {
			return err
		}
		if e.tmpl != "" {
			return e.printTemplate(job)
		}
		// The human form of a job is its JSON, wrapped as Nomad does.
		return e.printJSON(struct{ Job *api.Job }{job})
	}
	return c
}

func (e *env) inspectJob(prefix string, version optUint) (*api.Job, error) {
	id, err := e.resolveJob(prefix)
	if err != nil {
		return nil, err
	}
	cl, _ := e.api()
	if !version.set {
		job, _, err := cl.Jobs().Info(id, e.query())
		if err != nil {
			return nil, apiError("reading job "+id, err)
		}
		return job, nil
	}
	versions, _, _, err := cl.Jobs().Versions(id, false, e.query())
	if err != nil {
		return nil, apiError("reading versions of job "+id, err)
	}
	for _, j := range versions {
		if j.Version != nil && *j.Version == version.v {
			return j, nil
		}
	}
	return nil, errorf("job %q has no version %d", id, version.v)
}
