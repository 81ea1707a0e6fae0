package structs

import "time"

// ForceTime is when the drain forces everything off the node: the
// ForceDeadline fixed when the drain started, or StartedAt+Deadline when a
// writer left it unset. Zero means no deadline.
func (d *DrainStrategy) ForceTime() time.Time {
	switch {
	case !d.ForceDeadline.IsZero():
		return d.ForceDeadline
	case d.Deadline > 0 && !d.StartedAt.IsZero():
		return d.StartedAt.Add(d.Deadline)
	}
	return time.Time{}
}

// ForcedAt reports whether, at now, the drain moves everything regardless
// of migrate limits and of room elsewhere: a force drain (Deadline < 0) or
// a deadline reached. The drainer and the schedulers share this rule.
func (d *DrainStrategy) ForcedAt(now time.Time) bool {
	if d.Deadline < 0 {
		return true
	}
	dl := d.ForceTime()
	return !dl.IsZero() && !now.Before(dl)
}
