package scheduler

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// rescheduleWhen says whether a failed alloc is replaced now, later (by a
// delayed follow-up eval), or never (policy exhausted).
type rescheduleWhen int

const (
	rescheduleNever rescheduleWhen = iota
	rescheduleNow
	rescheduleLater
)

// rescheduleWindow lets an alloc whose delay ends within it be replaced by
// the current eval instead of a follow-up that would fire right away.
const rescheduleWindow = time.Second

// followUpBatchWindow groups failed allocs whose reschedule times are this
// close into one follow-up eval.
const followUpBatchWindow = 5 * time.Second

// maxRescheduleEvents bounds the history carried by each replacement.
const maxRescheduleEvents = 20

// rescheduleDecision decides the fate of a failed alloc under the policy.
// An alloc whose follow-up eval is the one being processed is due now even
// if the clock is slightly behind its reschedule time.
func rescheduleDecision(a *structs.Allocation, p *structs.ReschedulePolicy, now time.Time, evalID string) (rescheduleWhen, time.Time, time.Duration) {
	if forced(a) {
		return rescheduleNow, now, 0
	}
	if a.ClientStatus != structs.AllocClientStatusFailed || p == nil || (!p.Unlimited && p.Attempts <= 0) {
		return rescheduleNever, time.Time{}, 0
	}
	if !p.Unlimited && recentReschedules(a, p.Interval, now) >= p.Attempts {
		return rescheduleNever, time.Time{}, 0
	}
	delay := nextRescheduleDelay(p, a.RescheduleTracker)
	at := failTime(a, now).Add(delay)
	if !at.After(now.Add(rescheduleWindow)) || (a.FollowupEvalID != "" && a.FollowupEvalID == evalID) {
		return rescheduleNow, at, delay
	}
	return rescheduleLater, at, delay
}

func forced(a *structs.Allocation) bool {
	f := a.DesiredTransition.ForceReschedule
	return f != nil && *f
}

func recentReschedules(a *structs.Allocation, interval time.Duration, now time.Time) int {
	if a.RescheduleTracker == nil {
		return 0
	}
	n := 0
	for _, e := range a.RescheduleTracker.Events {
		if interval <= 0 || now.Sub(time.Unix(0, e.RescheduleTime)) < interval {
			n++
		}
	}
	return n
}

// nextRescheduleDelay applies the delay function to the previous delay:
// constant keeps it, exponential doubles it, fibonacci adds the two last;
// capped at MaxDelay.
func nextRescheduleDelay(p *structs.ReschedulePolicy, t *structs.RescheduleTracker) time.Duration {
	delay := p.Delay
	if t != nil && len(t.Events) > 0 {
		last := t.Events[len(t.Events)-1].Delay
		switch p.DelayFunction {
		case structs.RescheduleDelayExponential:
			delay = max(last, p.Delay) * 2
		case structs.RescheduleDelayFibonacci:
			if len(t.Events) >= 2 {
				delay = last + t.Events[len(t.Events)-2].Delay
			}
		}
	}
	if p.MaxDelay > 0 && delay > p.MaxDelay {
		delay = p.MaxDelay
	}
	return delay
}

// failTime is when the alloc's last task finished, or its last change.
func failTime(a *structs.Allocation, now time.Time) time.Time {
	var t time.Time
	for _, ts := range a.TaskStates {
		if ts != nil && ts.FinishedAt.After(t) {
			t = ts.FinishedAt
		}
	}
	if t.IsZero() && a.ModifyTime != 0 {
		t = time.Unix(0, a.ModifyTime)
	}
	if t.IsZero() {
		t = now
	}
	return t
}

// nextTracker is the replacement's reschedule history: the failed alloc's
// plus this reschedule.
func nextTracker(prev *structs.Allocation, now time.Time, delay time.Duration) *structs.RescheduleTracker {
	t := &structs.RescheduleTracker{}
	if prev.RescheduleTracker != nil {
		t = prev.RescheduleTracker.Copy()
	}
	t.Events = append(t.Events, &structs.RescheduleEvent{
		RescheduleTime: now.UnixNano(), PrevAllocID: prev.ID, PrevNodeID: prev.NodeID, Delay: delay,
	})
	if len(t.Events) > maxRescheduleEvents {
		t.Events = t.Events[len(t.Events)-maxRescheduleEvents:]
	}
	return t
}

// penaltyNodes are the nodes the alloc's line already failed on.
func penaltyNodes(prev *structs.Allocation) map[string]bool {
	out := map[string]bool{prev.NodeID: true}
	if prev.RescheduleTracker != nil {
		for _, e := range prev.RescheduleTracker.Events {
			out[e.PrevNodeID] = true
		}
	}
	return out
}
