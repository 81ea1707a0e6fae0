package command

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/nomad/api"
)

func init() { register("job dispatch", jobDispatchCmd) }

func jobDispatchCmd() *cmd {
	var (
		meta     kvList
		idPrefix string
		detach   bool
	)
	c := &cmd{
		Name: "job dispatch", Args: "<job> [<payload file>|-]", MinArgs: 1, MaxArgs: 2,
		Synopsis: "Dispatch an instance of a parameterized job",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&meta, "meta", "Set a dispatch meta key=value. Repeatable.")
		fs.StringVar(&idPrefix, "id-prefix-template", "", "A prefix for the dispatched job's ID.")
		detachFlag(fs, &detach)
	}
	c.Run = func(e *env, args []string) error {
		m, err := meta.pairs()
		if err != nil {
			return err
		}
		payload, err := readPayload(args[1:])
		if err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		resp, _, err := cl.Jobs().DispatchOpts(&api.DispatchOptions{
			JobID: args[0], Meta: m, Payload: payload, IdPrefixTemplate: idPrefix,
		}, e.write())
		if err != nil {
			return apiError("dispatching job "+args[0], err)
		}
		fmt.Fprintf(e.stdout, "Dispatched Job ID = %s\nEvaluation ID     = %s\n", resp.DispatchedJobID, orNone(resp.EvalID))
		if detach || resp.EvalID == "" {
			return nil
		}
		return e.monitor(resp.EvalID)
	}
	return c
}

// readPayload reads the optional payload file ("-" is stdin).
func readPayload(args []string) ([]byte, error) {
	if len(args) == 0 {
		return nil, nil
	}
	if args[0] == "-" {
		return io.ReadAll(os.Stdin)
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return nil, fmt.Errorf("reading payload: %w", err)
	}
	return b, nil
}
