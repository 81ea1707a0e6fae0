package structs

import "testing"

func TestPlanJobGone(t *testing.T) {
	planned := &Job{ID: "j", CreateIndex: 5, JobModifyIndex: 5}
	job := func(create, modify uint64, stop bool) *Job {
		return &Job{ID: "j", CreateIndex: create, JobModifyIndex: modify, Stop: stop}
	}
	for _, tc := range []struct {
		name   string
		stored *Job
		plan   *Job
		want   bool
	}{
		{"plan without a job", nil, nil, false},
		{"purged", nil, planned, true},
		{"unchanged", job(5, 5, false), planned, false},
		{"newer running version", job(5, 9, false), planned, false},
		{"stopped by a newer version", job(5, 9, true), planned, true},
		{"purged and registered again", job(8, 8, false), planned, true},
		{"plan of the stop itself", job(5, 9, true), job(5, 9, true), false},
	} {
		if got := PlanJobGone(tc.stored, tc.plan); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
