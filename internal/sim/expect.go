package sim

import (
	"fmt"
	"time"
)

// check returns a description of every part of the expectation that the
// history does not meet; now is the simulated time of the check.
func (e *Expect) check(h History, now time.Duration) []string {
	var fails []string
	byID := map[string]EvalRecord{}
	var recent []EvalRecord
	for _, r := range h.Evals {
		byID[r.ID] = r
		if r.Created >= e.Since {
			recent = append(recent, r)
		}
	}
	if e.Total != nil && len(recent) != *e.Total {
		fails = append(fails, fmt.Sprintf("%d evals since %v, want %d", len(recent), e.Since, *e.Total))
	}
	for _, want := range e.Evals {
		got := 0
		for _, r := range recent {
			if want.matches(r, byID, now) {
				got++
			}
		}
		if got != want.Count {
			fails = append(fails, fmt.Sprintf("%d evals %s, want %d", got, want, want.Count))
		}
	}
	for _, want := range e.Allocs {
		if got := want.count(h); got != want.Count {
			fails = append(fails, fmt.Sprintf("%d allocs %s, want %d", got, want, want.Count))
		}
	}
	return fails
}

func (w EvalExpect) matches(r EvalRecord, byID map[string]EvalRecord, now time.Duration) bool {
	if !matchField(w.Trigger, r.Trigger) || !matchField(w.Status, r.Status) || !matchField(w.Job, r.Job) {
		return false
	}
	if w.Delayed != nil && *w.Delayed != (r.WaitUntil > now) {
		return false
	}
	if !matchPointer(w.Next, r.Next) || !matchPointer(w.Blocked, r.Blocked) {
		return false
	}
	if w.Previous == "none" {
		return r.Previous == ""
	}
	if w.Previous == "" && w.PreviousStatus == "" && w.Link == "" {
		return true
	}
	prev, ok := byID[r.Previous]
	if !ok || !matchField(w.Previous, prev.Trigger) || !matchField(w.PreviousStatus, prev.Status) {
		return false
	}
	switch w.Link {
	case "":
		return true
	case "blocked":
		return prev.Blocked == r.ID
	case "next":
		return prev.Next == r.ID
	}
	return false
}

// matchPointer: "none" wants the pointer unset, "set" wants it set.
func matchPointer(want, got string) bool {
	switch want {
	case "none":
		return got == ""
	case "set":
		return got != ""
	}
	return true
}

// matchField: an unset expectation matches anything.
func matchField(want, got string) bool { return want == "" || want == got }

func (w EvalExpect) String() string {
	s := "trigger=" + orAny(w.Trigger) + " status=" + orAny(w.Status)
	if w.Job != "" {
		s += " job=" + w.Job
	}
	if w.Delayed != nil {
		s += fmt.Sprintf(" delayed=%v", *w.Delayed)
	}
	if w.Previous != "" {
		s += " previous=" + w.Previous
	}
	if w.PreviousStatus != "" {
		s += " previous_status=" + w.PreviousStatus
	}
	if w.Link != "" {
		s += " link=" + w.Link
	}
	if w.Next != "" {
		s += " next=" + w.Next
	}
	if w.Blocked != "" {
		s += " blocked=" + w.Blocked
	}
	return s
}

func orAny(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func (w AllocExpect) desired() string {
	if w.Desired == "" {
		return "run"
	}
	return w.Desired
}

func (w AllocExpect) client() string {
	if w.Client == "" {
		return "running"
	}
	return w.Client
}

func (w AllocExpect) count(h History) int {
	n := 0
	for _, a := range h.Allocs {
		if matchField(w.Job, a.Job) && matchField(w.Node, a.Node) && a.Desired == w.desired() && a.Client == w.client() &&
			(w.Restarts == nil || a.Restarts == uint64(*w.Restarts)) {
			n++
		}
	}
	return n
}

func (w AllocExpect) String() string {
	s := "job=" + orAny(w.Job)
	if w.Node != "" {
		s += " node=" + w.Node
	}
	if w.Restarts != nil {
		s += fmt.Sprintf(" restarts=%d", *w.Restarts)
	}
	return s + " " + w.desired() + "/" + w.client()
}
