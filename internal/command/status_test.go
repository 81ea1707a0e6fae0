package command

import "testing"

func TestStatusAndJobRun(t *testing.T) {
	addr, _ := testAgent(t, nil)
	golden(t, "status_empty", run(t, "status", "-address", addr))
	golden(t, "job_run_detach", run(t, "job", "run", "-address", addr, "-detach", "testdata/jobs/example.json"))
	golden(t, "status", run(t, "status", "-address", addr))
	golden(t, "job_status", run(t, "job", "status", "-address", addr, "example"))
	golden(t, "job_status_prefix", run(t, "job", "status", "-address", addr, "exa"))
	golden(t, "job_status_verbose", run(t, "job", "status", "-address", addr, "-verbose", "example"))
	golden(t, "status_json", run(t, "status", "-address", addr, "-json"))
	golden(t, "status_template", run(t, "status", "-address", addr, "-t", "{{range .}}{{.ID}} {{.Status}}\n{{end}}"))
}
