package scheduler

import (
	"fmt"

	"github.com/drover-project/drover/internal/structs"
)

// maxAttemptsError is returned when a plan kept being rejected.
type maxAttemptsError struct{ limit int }

func (e *maxAttemptsError) Error() string {
	return fmt.Sprintf("maximum attempts reached (%d)", e.limit)
}

// retryMax runs attempt until it reports done, at most limit times in a
// row without progress: an attempt whose plan was partly committed made
// progress, so the count starts over (a busy cluster still converges).
func retryMax(limit int, attempt func() (bool, error), progress func() bool) error {
	for n := 0; n < limit; {
		done, err := attempt()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if progress != nil && progress() {
			n = 0
		} else {
			n++
		}
	}
	return &maxAttemptsError{limit: limit}
}

// progressMade reports whether the leader committed any part of a plan.
func progressMade(r *structs.PlanResult) bool {
	return r != nil && (len(r.NodeUpdate) > 0 || len(r.NodeAllocation) > 0 ||
		r.Deployment != nil || len(r.DeploymentUpdates) > 0)
}
