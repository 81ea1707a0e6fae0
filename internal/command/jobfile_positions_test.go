package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobRunPlanValidate_DriverTypoAtItsFilePosition: a typo in a driver
// config is refused by plan, run and validate, on the server, and the CLI
// shows it at the task's config position in the HCL file, with the key
// meant (issue 29: before, plan said every task placed and run accepted).
func TestJobRunPlanValidate_DriverTypoAtItsFilePosition(t *testing.T) {
	addr, _ := testAgent(t, nil)
	path := filepath.Join(t.TempDir(), "typo.nomad.hcl")
	src := `job "typo" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        comand = "/bin/true"
      }
    }
  }
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"plan", "run", "validate"} {
		r := run(t, "job", verb, "-address", addr, path)
		if r.code == 0 {
			t.Fatalf("job %s: exit 0, want a refusal:\n%s%s", verb, r.stdout, r.stderr)
		}
		for _, want := range []string{path + ":5:7: TaskGroups[0].Tasks[0].Config.comand", `did you mean "command"`} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("job %s: stderr does not contain %q:\n%s", verb, want, r.stderr)
			}
		}
	}
}

func TestAtPositions(t *testing.T) {
	pos := map[string]string{"TaskGroups[0]": "j.hcl:2:3", "TaskGroups[0].Tasks[1]": "j.hcl:9:5", "TaskGroups[0].Tasks[1].Config": "j.hcl:11:7"}
	in := "2 problem(s):\n* TaskGroups[0].Tasks[1].Config.imagee: unknown\n* TaskGroups[0].Count: negative\n* Priority: out of range"
	want := "2 problem(s):\n* j.hcl:11:7: TaskGroups[0].Tasks[1].Config.imagee: unknown\n* j.hcl:2:3: TaskGroups[0].Count: negative\n* Priority: out of range"
	if got := atPositions(in, pos); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
