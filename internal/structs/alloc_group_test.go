package structs

import "testing"

func TestAllocation_Group(t *testing.T) {
	web := &TaskGroup{Name: "web"}
	job := &Job{TaskGroups: []*TaskGroup{{Name: "db"}, web}}
	cases := []struct {
		name  string
		alloc *Allocation
		want  *TaskGroup
	}{
		{"found", &Allocation{Job: job, TaskGroup: "web"}, web},
		{"group missing from the job", &Allocation{Job: job, TaskGroup: "cache"}, nil},
		{"no job", &Allocation{TaskGroup: "web"}, nil},
		{"nil alloc", nil, nil},
	}
	for _, tc := range cases {
		if got := tc.alloc.Group(); got != tc.want {
			t.Errorf("%s: Group() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
