package leader

import (
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// collectExpiredTokens deletes ACL tokens whose expiration time has
// passed (they are refused from that moment; this only frees the rows).
func (c *coreScheduler) collectExpiredTokens(now time.Time) error {
	tokens, err := c.l.srv.State().ACLTokens(nil, "")
	if err != nil {
		return err
	}
	var expired []string
	for _, t := range tokens {
		if t.IsExpired(now) {
			expired = append(expired, t.AccessorID)
		}
	}
	if len(expired) == 0 {
		return nil
	}
	_, err = c.l.srv.Apply(structs.ACLTokenDeleteRequestType, &structs.ACLTokenDeleteRequest{AccessorIDs: expired})
	return err
}
