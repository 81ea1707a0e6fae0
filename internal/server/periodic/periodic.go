package periodic

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/cronexpr"

	"github.com/drover-project/drover/internal/structs"
)

// ChildSeparator separates a parent's ID from the launch suffix.
const ChildSeparator = "/periodic-"

// Next returns the earliest launch strictly after t over the config's cron
// specs, evaluated in its time zone (UTC by default); zero when none.
func Next(p *structs.PeriodicConfig, after time.Time) (time.Time, error) {
	loc, err := location(p.TimeZone)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	for i, spec := range p.Specs {
		expr, err := cronexpr.Parse(spec)
		if err != nil {
			return time.Time{}, fmt.Errorf("Periodic.Specs[%d]: invalid cron expression %q: %v", i, spec, err)
		}
		t := expr.Next(after.In(loc))
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	return next, nil
}

func location(tz string) (*time.Location, error) {
	if tz == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("Periodic.TimeZone: unknown time zone %q", tz)
	}
	return loc, nil
}

// Validate reports whether the config's specs and time zone parse.
func Validate(p *structs.PeriodicConfig) error {
	_, err := Next(p, time.Unix(0, 0))
	return err
}

// ChildID is the ID of the child launched at t: parent/periodic-<unix>.
func ChildID(parentID string, t time.Time) string {
	return parentID + ChildSeparator + strconv.FormatInt(t.Unix(), 10)
}

// Child derives the job a launch at t registers: the parent's spec with
// its own ID, the parent as ParentID, and no periodic block.
func Child(parent *structs.Job, t time.Time) *structs.Job {
	c := parent.Copy()
	c.ID = ChildID(parent.ID, t)
	c.Name = c.ID
	c.ParentID = parent.ID
	c.Periodic = nil
	c.Status, c.StatusDescription, c.Stable = "", "", false
	c.Version, c.SubmitTime = 0, 0
	c.CreateIndex, c.ModifyIndex, c.JobModifyIndex = 0, 0, 0
	return c
}
