package apiconv

import (
	"github.com/drover-project/drover/internal/structs"
	"github.com/hashicorp/nomad/api"
)

// SchedulerConfigFromStructs converts the cluster scheduler configuration.
func SchedulerConfigFromStructs(c *structs.SchedulerConfiguration) *api.SchedulerConfiguration {
	if c == nil {
		return nil
	}
	return &api.SchedulerConfiguration{
		SchedulerAlgorithm:            api.SchedulerAlgorithm(c.SchedulerAlgorithm),
		PreemptionConfig:              preemptionFromStructs(c.PreemptionConfig),
		MemoryOversubscriptionEnabled: c.MemoryOversubscriptionEnabled,
		RejectJobRegistration:         c.RejectJobRegistration,
		PauseEvalBroker:               c.PauseEvalBroker,
		CreateIndex:                   c.CreateIndex,
		ModifyIndex:                   c.ModifyIndex,
	}
}

// SchedulerConfigToStructs converts a configuration update. The indexes are
// copied because the CAS endpoint compares ModifyIndex; raft sets them anew.
func SchedulerConfigToStructs(c *api.SchedulerConfiguration) *structs.SchedulerConfiguration {
	if c == nil {
		return nil
	}
	return &structs.SchedulerConfiguration{
		SchedulerAlgorithm:            string(c.SchedulerAlgorithm),
		PreemptionConfig:              preemptionToStructs(c.PreemptionConfig),
		MemoryOversubscriptionEnabled: c.MemoryOversubscriptionEnabled,
		RejectJobRegistration:         c.RejectJobRegistration,
		PauseEvalBroker:               c.PauseEvalBroker,
		CreateIndex:                   c.CreateIndex,
		ModifyIndex:                   c.ModifyIndex,
	}
}

// The preemption configs are converted field by field rather than with a
// type conversion so that a field added on either side does not break the
// build of this package.
func preemptionFromStructs(p structs.PreemptionConfig) api.PreemptionConfig {
	return api.PreemptionConfig{
		SystemSchedulerEnabled:   p.SystemSchedulerEnabled,
		SysBatchSchedulerEnabled: p.SysBatchSchedulerEnabled,
		BatchSchedulerEnabled:    p.BatchSchedulerEnabled,
		ServiceSchedulerEnabled:  p.ServiceSchedulerEnabled,
	}
}

func preemptionToStructs(p api.PreemptionConfig) structs.PreemptionConfig {
	return structs.PreemptionConfig{
		SystemSchedulerEnabled:   p.SystemSchedulerEnabled,
		SysBatchSchedulerEnabled: p.SysBatchSchedulerEnabled,
		BatchSchedulerEnabled:    p.BatchSchedulerEnabled,
		ServiceSchedulerEnabled:  p.ServiceSchedulerEnabled,
	}
}
