package command

import "testing"

// TestHCLJob submits an HCL2 job file through the jobspec parser, with a
// -var override, and reads the variable back from the stored job.
func TestHCLJob(t *testing.T) {
	addr, _ := testAgent(t, nil)
	golden(t, "job_run_hcl", run(t, "job", "run", "-address", addr, "-detach", "-var", "image=redis:8", "testdata/jobs/example.nomad.hcl"))
	golden(t, "job_inspect_hcl_template", run(t, "job", "inspect", "-address", addr,
		"-t", `{{range .TaskGroups}}{{range .Tasks}}{{.Name}} {{index .Config "image"}}{{end}}{{end}}`+"\n", "example-hcl"))
	golden(t, "job_run_bad_var", run(t, "job", "run", "-address", addr, "-detach", "-var", "novalue", "testdata/jobs/example.nomad.hcl"))
	golden(t, "job_run_missing_file", run(t, "job", "run", "-address", addr, "testdata/jobs/nope.hcl"))
}
