package command

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// jobFileFlags are the options of every command that reads a job file.
type jobFileFlags struct {
	vars     kvList
	varFiles strList
}

func (j *jobFileFlags) register(fs *flag.FlagSet) {
	fs.Var(&j.vars, "var", "Set an HCL2 input variable, key=value. Repeatable.")
	fs.Var(&j.varFiles, "var-file", "Read HCL2 input variables from a file. Repeatable.")
}

// loadJob reads a job file: JSON (an API job, bare or wrapped as
// {"Job": ...}) when the name ends in .json or the content starts with
// '{', else HCL2 through the jobspec parser. "-" reads stdin.
func (e *env) loadJob(path string, jf *jobFileFlags) (*api.Job, error) {
	data, err := readJobFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".json") || bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		if len(jf.vars) > 0 || len(jf.varFiles) > 0 {
			fmt.Fprintln(e.stderr, "Warning: -var and -var-file apply to HCL job files only; ignored for JSON")
		}
		return parseJSONJob(path, data)
	}
	return e.parseHCLJob(path, data, jf)
}

func readJobFile(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading job file: %w", err)
	}
	return data, nil
}

// parseJSONJob accepts both shapes Nomad's tools produce: `nomad job
// inspect` output ({"Job": ...}) and a bare job.
func parseJSONJob(path string, data []byte) (*api.Job, error) {
	var wrapped struct{ Job *api.Job }
	if err := json.Unmarshal(data, &wrapped); err != nil {
		return nil, fmt.Errorf("parsing %s as JSON: %w", path, err)
	}
	if wrapped.Job != nil {
		return wrapped.Job, nil
	}
	var job api.Job
	if err := json.Unmarshal(data, &job); err != nil {
		return nil, fmt.Errorf("parsing %s as JSON: %w", path, err)
	}
	if job.ID == nil && job.Name == nil {
		return nil, fmt.Errorf("%s: no job found (expected a job object or {\"Job\": ...})", path)
	}
	return &job, nil
}
