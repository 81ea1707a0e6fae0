package fsm

import (
	"fmt"
	"reflect"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// applierTable maps each log entry type to the function that applies it.
func (f *FSM) applierTable() map[structs.MessageType]applier {
	return map[structs.MessageType]applier{
		structs.JobRegisterRequestType:           decodeAndApply(f.applyJobRegister),
		structs.JobDeregisterRequestType:         decodeAndApply(f.applyJobDeregister),
		structs.JobBatchDeregisterRequestType:    decodeAndApply(f.applyJobBatchDeregister),
		structs.EvalUpdateRequestType:            decodeAndApply(f.applyEvalUpdate),
		structs.EvalDeleteRequestType:            decodeAndApply(f.applyEvalDelete),
		structs.NodeRegisterRequestType:          decodeAndApply(f.applyNodeRegister),
		structs.NodeDeregisterRequestType:        decodeAndApply(f.applyNodeDeregister),
		structs.NodeUpdateStatusRequestType:      decodeAndApply(f.applyNodeStatus),
		structs.NodeUpdateDrainRequestType:       decodeAndApply(f.applyNodeDrain),
		structs.NodeUpdateEligibilityType:        decodeAndApply(f.applyNodeEligibility),
		structs.AllocUpdateRequestType:           decodeAndApply(f.applyAllocServerUpdate),
		structs.AllocClientUpdateRequestType:     decodeAndApply(f.applyAllocClientUpdate),
		structs.AllocUpdateDesiredTransitionType: decodeAndApply(f.applyAllocDesiredTransition),
		structs.ApplyPlanResultsRequestType:      decodeWithAndApply(structs.DecodePlanResults, f.applyPlanResults),
		structs.DeploymentStatusUpdateType:       decodeAndApply(f.applyDeploymentStatus),
		structs.SchedulerConfigRequestType:       decodeAndApply(f.applySchedulerConfig),
		structs.DeploymentPromoteRequestType:     decodeAndApply(f.applyDeploymentPromote),
		structs.DeploymentAllocHealthRequestType: decodeAndApply(f.applyDeploymentAllocHealth),
		structs.ACLPolicyUpsertRequestType:       decodeAndApply(f.applyACLPolicyUpsert),
		structs.ACLPolicyDeleteRequestType:       decodeAndApply(f.applyACLPolicyDelete),
		structs.ACLTokenUpsertRequestType:        decodeAndApply(f.applyACLTokenUpsert),
		structs.ACLTokenDeleteRequestType:        decodeAndApply(f.applyACLTokenDelete),
		structs.ACLTokenBootstrapRequestType:     decodeAndApply(f.applyACLTokenBootstrap),
		structs.ACLRoleUpsertRequestType:         decodeAndApply(f.applyACLRoleUpsert),
		structs.ACLRoleDeleteRequestType:         decodeAndApply(f.applyACLRoleDelete),
		structs.ACLAuthMethodUpsertRequestType:   decodeAndApply(f.applyACLAuthMethodUpsert),
		structs.ACLAuthMethodDeleteRequestType:   decodeAndApply(f.applyACLAuthMethodDelete),
		structs.ACLBindingRuleUpsertRequestType:  decodeAndApply(f.applyACLBindingRuleUpsert),
		structs.ACLBindingRuleDeleteRequestType:  decodeAndApply(f.applyACLBindingRuleDelete),
		structs.OneTimeTokenUpsertRequestType:    decodeAndApply(f.applyOneTimeTokenUpsert),
		structs.OneTimeTokenDeleteRequestType:    decodeAndApply(f.applyOneTimeTokenDelete),
		structs.OIDCAuthRequestUpsertRequestType: decodeAndApply(f.applyOIDCAuthRequestUpsert),
		structs.OIDCAuthRequestDeleteRequestType: decodeAndApply(f.applyOIDCAuthRequestDelete),
		structs.JobStabilityRequestType:          decodeAndApply(f.applyJobStability),
		structs.JobVersionTagRequestType:         decodeAndApply(f.applyJobVersionTag),
		structs.NodePoolUpsertRequestType:        decodeAndApply(f.applyNodePoolUpsert),
		structs.NodePoolDeleteRequestType:        decodeAndApply(f.applyNodePoolDelete),
		structs.NamespaceUpsertRequestType:       decodeAndApply(f.applyNamespaceUpsert),
		structs.NamespaceDeleteRequestType:       decodeAndApply(f.applyNamespaceDelete),
		structs.AutopilotConfigRequestType:       decodeAndApply(f.applyAutopilotConfig),
	}
}

// decodeAndApply decodes the payload into a fresh T and applies it.
func decodeAndApply[T any](fn func(req *T, index uint64) error) applier {
	return decodeWithAndApply(func(buf []byte, req *T) error { return structs.Decode(buf, req) }, fn)
}

// decodeWithAndApply is decodeAndApply with an entry type's own decoder,
// which must give what structs.Decode gives (a plan result's:
// structs.DecodePlanResults).
func decodeWithAndApply[T any](decode func([]byte, *T) error, fn func(req *T, index uint64) error) applier {
	return applier{payload: reflect.TypeFor[T](), apply: func(buf []byte, index uint64) error {
		req := new(T)
		if err := decode(buf, req); err != nil {
			return fmt.Errorf("decode %T: %w", req, err)
		}
		return fn(req, index)
	}}
}

func (f *FSM) applyJobRegister(req *structs.JobRegisterRequest, index uint64) error {
	// The eval refers to the job version this entry writes, whose index is
	// only known now. req was decoded fresh, so it is ours to change.
	if req.Eval != nil {
		req.Eval.JobModifyIndex = index
	}
	if err := f.state.UpsertJobEntry(index, req, evalList(req.Eval)...); err != nil {
		return err
	}
	f.notify(evalList(req.Eval))
	return nil
}

func (f *FSM) applyJobStability(req *structs.JobStabilityRequest, index uint64) error {
	return f.state.UpdateJobStability(index, req)
}

func (f *FSM) applyJobVersionTag(req *structs.JobVersionTagRequest, index uint64) error {
	return f.state.TagJobVersion(index, req)
}

func (f *FSM) applyJobDeregister(req *structs.JobDeregisterRequest, index uint64) error {
	if req.Eval != nil {
		req.Eval.JobModifyIndex = index
	}
	if err := f.deregisterJob(index, req, evalList(req.Eval)); err != nil {
		return err
	}
	f.notify(evalList(req.Eval))
	return nil
}

func (f *FSM) applyJobBatchDeregister(req *structs.JobBatchDeregisterRequest, index uint64) error {
	for i := range req.Jobs {
		if err := f.deregisterJob(index, &req.Jobs[i], nil); err != nil {
			return err
		}
	}
	return f.upsertEvals(index, req.Evals)
}

// deregisterJob purges the job or stores a stopped copy of it, writing
// evals in the same transaction.
func (f *FSM) deregisterJob(index uint64, req *structs.JobDeregisterRequest, evals []*structs.Evaluation) error {
	st := state.JobStop{Namespace: req.Namespace, JobID: req.JobID, Purge: req.Purge, SubmitTime: req.SubmitTime,
		NoShutdownDelay: req.NoShutdownDelay}
	if !req.Purge {
		job, err := f.view().JobByID(nil, req.Namespace, req.JobID)
		if err != nil {
			return err
		}
		if job != nil && !job.Stop {
			st.Stopped = job.Copy()
			st.Stopped.Stop = true
		}
	}
	return f.state.StopJob(index, st, evals...)
}

func (f *FSM) applyEvalUpdate(req *structs.EvalUpdateRequest, index uint64) error {
	if err := f.state.UpsertEvals(index, req.Evals); err != nil {
		return err
	}
	f.notifyWithToken(req.Evals, req.EvalToken)
	return nil
}

func (f *FSM) applyEvalDelete(req *structs.EvalDeleteRequest, index uint64) error {
	return f.state.DeleteEvals(index, req.Evals, req.Allocs)
}

func (f *FSM) applyNodeRegister(req *structs.NodeRegisterRequest, index uint64) error {
	if err := f.state.UpsertNode(index, req.Node, req.Evals...); err != nil {
		return err
	}
	f.capacityChanged(index, req.Node.ID)
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyNodeDeregister(req *structs.NodeDeregisterRequest, index uint64) error {
	if err := f.state.DeleteNodes(index, req.NodeIDs, req.Evals...); err != nil {
		return err
	}
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyNodeStatus(req *structs.NodeUpdateStatusRequest, index uint64) error {
	if err := f.state.UpdateNodeStatus(index, req.NodeID, req.Status, req.UpdatedAt, req.NodeEvent, req.Evals...); err != nil {
		return err
	}
	f.capacityChanged(index, req.NodeID)
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyNodeDrain(req *structs.NodeUpdateDrainRequest, index uint64) error {
	if err := f.state.UpdateNodeDrain(index, req.NodeID, req.DrainStrategy, req.MarkEligible, req.UpdatedAt, req.NodeEvent, req.Evals...); err != nil {
		return err
	}
	f.capacityChanged(index, req.NodeID)
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyNodeEligibility(req *structs.NodeUpdateEligibilityRequest, index uint64) error {
	if err := f.state.UpdateNodeEligibility(index, req.NodeID, req.Eligibility, req.UpdatedAt, req.NodeEvent, req.Evals...); err != nil {
		return err
	}
	f.capacityChanged(index, req.NodeID)
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyAllocServerUpdate(req *structs.AllocUpdateRequest, index uint64) error {
	if err := f.state.UpsertAllocs(index, req.Allocs, req.Evals...); err != nil {
		return err
	}
	f.capacityChanged(index, f.nodesOfTerminalAllocs(req.Allocs)...)
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyAllocClientUpdate(req *structs.AllocUpdateRequest, index uint64) error {
	if err := f.state.UpdateAllocsFromClient(index, req.Allocs, req.Evals...); err != nil {
		return err
	}
	f.capacityChanged(index, f.nodesOfTerminalAllocs(req.Allocs)...)
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyAllocDesiredTransition(req *structs.AllocUpdateDesiredTransitionRequest, index uint64) error {
	if err := f.state.UpdateAllocsDesiredTransitions(index, req.Allocs, req.Evals); err != nil {
		return err
	}
	f.notify(req.Evals)
	return nil
}

func (f *FSM) applyPlanResults(req *structs.ApplyPlanResultsRequest, index uint64) error {
	if err := f.state.UpsertPlanResults(index, req); err != nil {
		return err
	}
	var stoppedOn []string
	for _, a := range append(req.AllocsStopped, req.AllocsPreempted...) {
		stoppedOn = append(stoppedOn, f.allocNode(a.ID))
	}
	f.capacityChanged(index, stoppedOn...)
	f.notify(f.storedEvals(req.PreemptionEvals))
	if req.FinalEval != nil {
		f.notify([]*structs.Evaluation{req.FinalEval})
	}
	return nil
}

// storedEvals keeps the evals the write actually stored: a plan result
// for a job purged or stopped meanwhile drops its preemptions and their
// evals (structs.PlanJobGone), and the leader must not queue an eval the
// state does not have.
func (f *FSM) storedEvals(evals []*structs.Evaluation) []*structs.Evaluation {
	var out []*structs.Evaluation
	for _, e := range evals {
		if got, err := f.view().EvalByID(nil, e.ID); err == nil && got != nil {
			out = append(out, e)
		}
	}
	return out
}

func (f *FSM) applyDeploymentStatus(req *structs.DeploymentStatusUpdateRequest, index uint64) error {
	if err := f.state.UpdateDeploymentStatus(index, req); err != nil {
		return err
	}
	f.notify(evalList(req.Eval))
	return nil
}

func (f *FSM) applyDeploymentPromote(req *structs.DeploymentPromoteRequest, index uint64) error {
	if err := f.state.PromoteDeployment(index, req); err != nil {
		return err
	}
	f.notify(evalList(req.Eval))
	return nil
}

func (f *FSM) applyDeploymentAllocHealth(req *structs.DeploymentAllocHealthRequest, index uint64) error {
	if err := f.state.SetDeploymentAllocHealth(index, req); err != nil {
		return err
	}
	f.notify(evalList(req.Eval))
	return nil
}

func (f *FSM) applySchedulerConfig(req *structs.SchedulerSetConfigRequest, index uint64) error {
	if !req.CAS {
		return f.state.SchedulerSetConfig(index, &req.Config)
	}
	ok, err := f.state.SchedulerCASConfig(index, req.Config.ModifyIndex, &req.Config)
	if err != nil {
		return err
	}
	if !ok {
		return ErrCASConflict
	}
	return nil
}

func (f *FSM) applyAutopilotConfig(req *structs.AutopilotSetConfigEntry, index uint64) error {
	ok, err := f.state.AutopilotSetConfig(index, &req.Config, req.CAS)
	if err == nil && !ok {
		return ErrCASConflict
	}
	return err
}

// upsertEvals writes evals and hands them to the sink.
func (f *FSM) upsertEvals(index uint64, evals []*structs.Evaluation) error {
	if len(evals) == 0 {
		return nil
	}
	if err := f.state.UpsertEvals(index, evals); err != nil {
		return err
	}
	f.notify(evals)
	return nil
}

func evalList(e *structs.Evaluation) []*structs.Evaluation {
	if e == nil {
		return nil
	}
	return []*structs.Evaluation{e}
}

// nodesOfTerminalAllocs returns the nodes of the allocs that are now
// terminal: their resources are free again.
func (f *FSM) nodesOfTerminalAllocs(updates []*structs.Allocation) []string {
	var nodes []string
	for _, u := range updates {
		if a, err := f.view().AllocByID(nil, u.ID); err == nil && a != nil && a.TerminalStatus() {
			nodes = append(nodes, a.NodeID)
		}
	}
	return nodes
}

func (f *FSM) allocNode(id string) string {
	if a, err := f.view().AllocByID(nil, id); err == nil && a != nil {
		return a.NodeID
	}
	return ""
}

func (f *FSM) applyNodePoolUpsert(req *structs.NodePoolUpsertRequest, index uint64) error {
	return f.state.UpsertNodePools(index, req.NodePools)
}

func (f *FSM) applyNodePoolDelete(req *structs.NodePoolDeleteRequest, index uint64) error {
	return f.state.DeleteNodePools(index, req.Names)
}
