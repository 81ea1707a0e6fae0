package planapply

import (
	"fmt"

	"github.com/drover-project/drover/internal/structs"
)

// TokenChecker tells whether an evaluation is still held by a worker, and
// with which token. The eval broker satisfies it.
type TokenChecker interface {
	Outstanding(evalID string) (token string, ok bool)
}

// ValidatePlanToken rejects a plan whose evaluation is no longer
// outstanding under the plan's token. Such a plan comes from a worker
// whose delivery timed out: the eval may already be redelivered to
// another worker, and applying both plans would double-place.
func ValidatePlanToken(tokens TokenChecker, plan *structs.Plan) error {
	token, ok := tokens.Outstanding(plan.EvalID)
	if !ok {
		return fmt.Errorf("%w: eval %q is not outstanding", ErrStaleToken, plan.EvalID)
	}
	if token != plan.EvalToken {
		return fmt.Errorf("%w: eval %q is held under another token", ErrStaleToken, plan.EvalID)
	}
	return nil
}
