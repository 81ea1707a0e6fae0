package server

import (
	"errors"

	"github.com/drover-project/drover/internal/fsm"
	"github.com/drover-project/drover/internal/structs"
)

// OperatorEndpoint is the Operator.* endpoint family.
type OperatorEndpoint struct{ srv *Server }

// SchedulerSetConfiguration validates and writes the scheduler
// configuration. With cas it only applies if the stored ModifyIndex equals
// cfg.ModifyIndex, and reports whether it did.
func (e *OperatorEndpoint) SchedulerSetConfiguration(cfg *structs.SchedulerConfiguration, cas bool) (updated bool, index uint64, err error) {
	if cfg == nil {
		return false, 0, BadRequest("SchedulerConfig: missing configuration")
	}
	if err := cfg.Validate(); err != nil {
		return false, 0, BadRequest("invalid scheduler configuration: %w", err)
	}
	index, err = e.srv.raftApply(structs.SchedulerConfigRequestType, &structs.SchedulerSetConfigRequest{Config: *cfg, CAS: cas})
	if errors.Is(err, fsm.ErrCASConflict) {
		return false, index, nil
	}
	return err == nil, index, err
}
