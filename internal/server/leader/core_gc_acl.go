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
	if len(expired) > 0 {
		if _, err := c.l.srv.Apply(structs.ACLTokenDeleteRequestType, &structs.ACLTokenDeleteRequest{AccessorIDs: expired}); err != nil {
			return err
		}
	}
	return c.collectExpiredOneTimeTokens(now)
}

// collectExpiredOneTimeTokens deletes one-time tokens past their
// expiry (refused from that moment; this frees the rows).
func (c *coreScheduler) collectExpiredOneTimeTokens(now time.Time) error {
	otts, err := c.l.srv.State().OneTimeTokens(nil)
	if err != nil {
		return err
	}
	for _, t := range otts {
		if !t.ExpiresAt.After(now) {
			_, err := c.l.srv.Apply(structs.OneTimeTokenDeleteRequestType, &structs.OneTimeTokenDeleteRequest{Now: now})
			return err
		}
	}
	return nil
}
