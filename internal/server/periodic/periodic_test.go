package periodic

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

func TestNext(t *testing.T) {
	base := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	cases := []struct {
		name  string
		cfg   structs.PeriodicConfig
		want  time.Time
		isErr bool
	}{
		{"hourly", structs.PeriodicConfig{Specs: []string{"0 * * * *"}}, time.Date(2026, 11, 22, 11, 0, 0, 0, time.UTC), false},
		{"earliest of two specs", structs.PeriodicConfig{Specs: []string{"0 3 * * *", "45 10 * * *"}}, time.Date(2026, 11, 22, 10, 45, 0, 0, time.UTC), false},
		{"time zone", structs.PeriodicConfig{Specs: []string{"0 12 * * *"}, TimeZone: "America/New_York"}, time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC), false},
		{"bad spec", structs.PeriodicConfig{Specs: []string{"every tuesday"}}, time.Time{}, true},
		{"bad zone", structs.PeriodicConfig{Specs: []string{"* * * * *"}, TimeZone: "Mars/Olympus"}, time.Time{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Next(&tc.cfg, base)
			if (err != nil) != tc.isErr {
				t.Fatalf("err = %v", err)
			}
			if !tc.isErr && !got.Equal(tc.want) {
				t.Fatalf("next = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestChild(t *testing.T) {
	parent := &structs.Job{ID: "nightly", Namespace: "default", Version: 3, CreateIndex: 9, Status: "running",
		Periodic: &structs.PeriodicConfig{Enabled: true, Specs: []string{"@daily"}}, Meta: map[string]string{"k": "v"}}
	at := time.Unix(1_700_000_000, 0)
	c := Child(parent, at)
	if c.ID != "nightly/periodic-1700000000" || c.ParentID != "nightly" || c.Periodic != nil || c.Version != 0 || c.Status != "" || c.Meta["k"] != "v" {
		t.Fatalf("child = %+v", c)
	}
	if parent.Periodic == nil || parent.ID != "nightly" {
		t.Fatal("Child modified the parent")
	}
}
