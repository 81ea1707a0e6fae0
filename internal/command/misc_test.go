package command

import (
	"strings"
	"testing"
)

func TestMisc(t *testing.T) {
	addr, _ := testAgent(t, nil)
	golden(t, "node_status_empty", run(t, "node", "status", "-address", addr))
	golden(t, "node_status_unknown", run(t, "node", "status", "-address", addr, "abcd"))
	golden(t, "unknown_command", run(t, "frobnicate"))
	golden(t, "group_usage", run(t, "eval"))
	golden(t, "help_job_run", run(t, "job", "run", "-h"))
	golden(t, "help_eval_status", run(t, "eval", "status", "-help"))
	golden(t, "bad_flag", run(t, "job", "status", "-nope"))
	golden(t, "wrong_args", run(t, "eval", "status"))
	golden(t, "bad_address", run(t, "status", "-address", "http://127.0.0.1:1"))

	registerExample(t, addr)
	if r := run(t, "job", "run", "-address", addr, "-detach", "testdata/jobs/example-batch.json"); r.code != 0 {
		t.Fatalf("register batch job: %+v", r)
	}
	golden(t, "status_two_jobs", run(t, "status", "-address", addr))
	golden(t, "job_status_ambiguous", run(t, "job", "status", "-address", addr, "ex"))
	golden(t, "job_inspect", run(t, "job", "inspect", "-address", addr, "example"))
	golden(t, "job_inspect_template", run(t, "job", "inspect", "-address", addr, "-t", "{{.ID}} {{len .TaskGroups}}\n", "example"))
	golden(t, "job_history", run(t, "job", "history", "-address", addr, "example"))
	golden(t, "job_history_diff_single", run(t, "job", "history", "-address", addr, "-p", "example"))
	golden(t, "json_and_template", run(t, "status", "-address", addr, "-json", "-t", "x"))
	golden(t, "bad_template", run(t, "status", "-address", addr, "-t", "{{.Nope"))

	// A dry run of the registered job (no nodes: it would not place; exit 1
	// because the plan has changes), and a forced evaluation.
	golden(t, "job_plan", run(t, "job", "plan", "-address", addr, "testdata/jobs/example.json"))
	golden(t, "job_eval_detach", run(t, "job", "eval", "-address", addr, "-detach", "example"))

	golden(t, "job_stop_detach", run(t, "job", "stop", "-address", addr, "-detach", "example-batch"))
	golden(t, "job_stop_purge", run(t, "job", "stop", "-address", addr, "-detach", "-purge", "example-batch"))
	golden(t, "status_after_purge", run(t, "status", "-address", addr))
}

// TestEveryCommandHasHelp runs -h on every registered command.
func TestEveryCommandHasHelp(t *testing.T) {
	for name := range registry {
		r := run(t, append(strings.Fields(name), "-h")...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: drover "+name) {
			t.Errorf("%s -h: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
}

// TestEveryCommandRejectsBadUsage: an unknown flag, and too few
// arguments, exit 1 with the error and the usage on stderr, before any
// request is made (no agent runs here).
func TestEveryCommandRejectsBadUsage(t *testing.T) {
	for name, ctor := range registry {
		args := strings.Fields(name)
		r := run(t, append(args, "-no-such-flag")...)
		if r.code != 1 || !strings.HasPrefix(r.stderr, "Error: flag provided but not defined") || r.stdout != "" {
			t.Errorf("%s -no-such-flag: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
		if ctor().MinArgs == 0 {
			continue
		}
		r = run(t, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "Error: "+name+" takes") || !strings.Contains(r.stderr, "Usage: drover "+name) {
			t.Errorf("%s without arguments: exit %d, stderr %q", name, r.code, r.stderr)
		}
	}
}
