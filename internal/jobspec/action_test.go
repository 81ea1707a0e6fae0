package jobspec

import (
	"testing"

	"github.com/hashicorp/nomad/api"
)

// actionJob wraps task-level HCL in a job with one group and task.
func actionJob(taskBody string) string {
	return "job \"e\" {\n  group \"g\" {\n    task \"t\" {\n" + taskBody + "    }\n  }\n}\n"
}

func TestActionBlock(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		want    []*api.Action
		wantErr string // prefix of one reported line; "" for success
	}{
		{"none", "", nil, ""},
		{"command only", `      action "now" {
        command = "/bin/date"
      }
`, []*api.Action{{Name: "now", Command: "/bin/date"}}, ""},
		{"command and args, two actions", `      action "list-tmp" {
        command = "/bin/ls"
        args    = ["-l", "/tmp"]
      }
      action "hello" {
        command = "echo"
        args    = ["hi ${NOMAD_TASK_NAME}"]
      }
`, []*api.Action{{Name: "list-tmp", Command: "/bin/ls", Args: []string{"-l", "/tmp"}},
			{Name: "hello", Command: "echo", Args: []string{"hi ${NOMAD_TASK_NAME}"}}}, ""},
		{"missing command", `      action "now" {
        args = ["x"]
      }
`, nil, "test.nomad.hcl:4:7: Missing required argument"},
		{"duplicate name", `      action "now" {
        command = "date"
      }
      action "now" {
        command = "id"
      }
`, nil, "test.nomad.hcl:7:7: Duplicate action block"},
		{"args not a list", `      action "now" {
        command = "date"
        args    = "-u"
      }
`, nil, "test.nomad.hcl:6:19: Incorrect attribute value type"},
		{"unknown attribute", `      action "now" {
        command = "date"
        timeout = "5s"
      }
`, nil, "test.nomad.hcl:6:9: Unsupported argument"},
		{"missing label", `      action {
        command = "date"
      }
`, nil, "test.nomad.hcl:4:14: Missing name for action"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			job, _, err := parseSrc(actionJob(tc.body), ParseOptions{})
			if tc.wantErr != "" {
				if err == nil || !hasLine(err.Error(), tc.wantErr) {
					t.Fatalf("error:\n%v\nwant a line starting with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "Actions", job.TaskGroups[0].Tasks[0].Actions, tc.want)
		})
	}
}
