package command

import (
	"fmt"
	"os"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/jobspec"
)

// parseHCLJob parses an HCL2 job file with the jobspec parser, printing its
// warnings (e.g. ignored vault blocks) to stderr. Stdin is spooled to a
// temporary file because the parser reads files.
func (e *env) parseHCLJob(path string, data []byte, jf *jobFileFlags) (*api.Job, error) {
	vars, err := jf.vars.pairs()
	if err != nil {
		return nil, fmt.Errorf("-var: %w", err)
	}
	if path == "-" {
		tmp, cleanup, err := spool(data)
		if err != nil {
			return nil, err
		}
		defer cleanup()
		path = tmp
	}
	e.jobPositions = map[string]string{}
	job, warnings, err := jobspec.ParseFile(path, jobspec.ParseOptions{
		Vars: vars, VarFiles: jf.varFiles, AllowFS: true, Positions: e.jobPositions,
	})
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "Warning: %s\n", w)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing job file: %w", err)
	}
	return job, nil
}

func spool(data []byte) (string, func(), error) {
	f, err := os.CreateTemp("", "drover-job-*.nomad.hcl")
	if err != nil {
		return "", nil, fmt.Errorf("spooling stdin: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		os.Remove(f.Name())
		return "", nil, fmt.Errorf("spooling stdin: %w", err)
	}
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}
