package leader

import (
	"github.com/drover-project/drover/internal/structs"
)

// collectServiceRegistrations deletes catalog rows nobody will remove:
// their alloc is gone or has stopped on the client, or their node is gone
// or down (a client that died before deregistering, a lost delete).
func (c *coreScheduler) collectServiceRegistrations() error {
	st := c.l.srv.State()
	regs, err := st.ServiceRegistrations(nil, "*")
	if err != nil {
		return err
	}
	var orphans []string
	for _, reg := range regs {
		alloc, err := st.AllocByID(nil, reg.AllocID)
		if err != nil {
			return err
		}
		node, err := st.NodeByID(nil, reg.NodeID)
		if err != nil {
			return err
		}
		if alloc == nil || alloc.ClientTerminalStatus() || node == nil || node.TerminalStatus() {
			orphans = append(orphans, reg.ID)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	c.log.Debug("core GC: deleting orphaned service registrations", "count", len(orphans))
	_, err = c.l.srv.Apply(structs.ServiceRegistrationDeleteByIDRequestType,
		&structs.ServiceRegistrationDeleteByIDRequest{IDs: orphans})
	return err
}
