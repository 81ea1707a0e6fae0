package agent

import (
	"fmt"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/jobspec/fields"
)

// Every node field the table marks filled is set (non-zero) in what a
// real dev agent's GET /v1/node/:id answers, read with the official
// client, once the node is ready.
func TestNodeRowsFilledByADevAgent(t *testing.T) {
	a, c := clientTestAgent(t)
	eventually(t, 20*time.Second, func() string {
		n, _, err := c.Nodes().Info(a.Client().NodeID(), nil)
		if err != nil {
			return err.Error()
		}
		if n.Status != "ready" {
			return "node status " + n.Status
		}
		if missing := fields.UnfilledNodeFields(n); len(missing) > 0 {
			return fmt.Sprintf("fields the table marks filled are zero: %v", missing)
		}
		return ""
	})
}
