package leader

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// latestDue is the latest launch in (last, now], however many were missed.
func TestLatestDue(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	every5 := &structs.PeriodicConfig{Enabled: true, SpecType: "cron", Specs: []string{"*/5 * * * *"}}
	minutely := &structs.PeriodicConfig{Enabled: true, SpecType: "cron", Specs: []string{"* * * * *"}}
	twoSpecs := &structs.PeriodicConfig{Enabled: true, SpecType: "cron", Specs: []string{"0 3 * * *", "30 12 * * *"}}
	for _, c := range []struct {
		name      string
		p         *structs.PeriodicConfig
		last, now string
		want      string // "" for none due
	}{
		{"none due yet", every5, "2024-01-01T10:00:00Z", "2024-01-01T10:04:59Z", ""},
		{"launch at last is not due again", every5, "2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z", ""},
		{"launch exactly at now is due", every5, "2024-01-01T10:00:00Z", "2024-01-01T10:05:00Z", "2024-01-01T10:05:00Z"},
		{"one due", every5, "2024-01-01T10:00:00Z", "2024-01-01T10:07:00Z", "2024-01-01T10:05:00Z"},
		{"several missed: the latest", every5, "2024-01-01T10:00:00Z", "2024-01-01T11:03:10Z", "2024-01-01T11:00:00Z"},
		{"a month of minutes missed", minutely, "2024-01-01T00:00:00Z", "2024-01-31T17:42:59Z", "2024-01-31T17:42:00Z"},
		{"the later of two specs", twoSpecs, "2024-01-01T00:00:00Z", "2024-01-05T13:00:00Z", "2024-01-05T12:30:00Z"},
		{"the earlier of two specs", twoSpecs, "2024-01-01T00:00:00Z", "2024-01-05T04:00:00Z", "2024-01-05T03:00:00Z"},
	} {
		got, err := latestDue(c.p, at(c.last), at(c.now))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var want time.Time
		if c.want != "" {
			want = at(c.want)
		}
		if !got.Equal(want) {
			t.Errorf("%s: latestDue = %s, want %s", c.name, got, want)
		}
	}
}
