package cluster

import (
	"testing"
	"time"

	"github.com/drover-project/drover/internal/testutil"
)

// waitFor is testutil.WaitFor with the server packages' usual deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "the condition", cond)
}
