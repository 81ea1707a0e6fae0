package structs

import (
	"strings"
	"testing"
)

func TestValidateActions(t *testing.T) {
	cases := []struct {
		name    string
		actions []*Action
		wantErr string
	}{
		{"none", nil, ""},
		{"two actions", []*Action{{Name: "echo", Command: "/bin/echo", Args: []string{"hi"}}, {Name: "date-now", Command: "date"}}, ""},
		{"no command", []*Action{{Name: "echo"}}, "TaskGroups[0].Tasks[0].Actions[0].Command"},
		{"no name", []*Action{{Command: "date"}}, "TaskGroups[0].Tasks[0].Actions[0].Name"},
		{"space in name", []*Action{{Name: "get job", Command: "date"}}, "TaskGroups[0].Tasks[0].Actions[0].Name"},
		{"name too long", []*Action{{Name: strings.Repeat("a", 129), Command: "date"}}, "TaskGroups[0].Tasks[0].Actions[0].Name"},
		{"duplicate name", []*Action{{Name: "a", Command: "date"}, {Name: "a", Command: "id"}}, "TaskGroups[0].Tasks[0].Actions[1].Name"},
		{"nil action", []*Action{nil}, "TaskGroups[0].Tasks[0].Actions[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &Job{ID: "j", Name: "j", Type: JobTypeService, Datacenters: []string{"dc1"}, TaskGroups: []*TaskGroup{{
				Name: "g", Count: 1, Tasks: []*Task{{Name: "t", Driver: "raw_exec", Actions: tc.actions}},
			}}}
			j.Canonicalize()
			err := j.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}

func TestTaskAction_FindsByName(t *testing.T) {
	task := &Task{Actions: []*Action{nil, {Name: "a", Command: "x"}}}
	if got := task.Action("a"); got == nil || got.Command != "x" {
		t.Fatalf("Action(a) = %v", got)
	}
	if got := task.Action("b"); got != nil {
		t.Fatalf("Action(b) = %v, want nil", got)
	}
}
