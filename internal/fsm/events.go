package fsm

import (
	"sync"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// EventPublisher receives the event batch of each applied entry. Publish
// must not block: it runs inside Apply.
type EventPublisher interface {
	Publish(batch *structs.Events)
}

// entryEventTypes names the events of each entry type, as Nomad does: every
// object an entry changed becomes an event of the entry's type. Entry types
// absent here publish nothing.
var entryEventTypes = map[structs.MessageType]string{
	structs.JobRegisterRequestType:           structs.TypeJobRegistered,
	structs.JobDeregisterRequestType:         structs.TypeJobDeregistered,
	structs.JobBatchDeregisterRequestType:    structs.TypeJobBatchDeregistered,
	structs.EvalUpdateRequestType:            structs.TypeEvalUpdated,
	structs.EvalDeleteRequestType:            structs.TypeEvalDeleted,
	structs.NodeRegisterRequestType:          structs.TypeNodeRegistration,
	structs.NodeDeregisterRequestType:        structs.TypeNodeDeregistration,
	structs.NodeUpdateStatusRequestType:      structs.TypeNodeEvent,
	structs.NodeUpdateDrainRequestType:       structs.TypeNodeDrain,
	structs.NodeUpdateEligibilityType:        structs.TypeNodeEligibility,
	structs.AllocUpdateRequestType:           structs.TypeAllocationUpdated,
	structs.AllocClientUpdateRequestType:     structs.TypeAllocationUpdated,
	structs.AllocUpdateDesiredTransitionType: structs.TypeAllocationUpdateDesiredStatus,
	structs.ApplyPlanResultsRequestType:      structs.TypePlanResult,
	structs.DeploymentStatusUpdateType:       structs.TypeDeploymentUpdate,
	structs.DeploymentPromoteRequestType:     structs.TypeDeploymentPromotion,
	structs.DeploymentAllocHealthRequestType: structs.TypeDeploymentAllocHealth,
	structs.NodePoolUpsertRequestType:        structs.TypeNodePoolUpserted,
	structs.NodePoolDeleteRequestType:        structs.TypeNodePoolDeleted,
	// ACL entries: the event type comes from the object (aclEvent).
	structs.ACLPolicyUpsertRequestType:      structs.TypeACLPolicyUpserted,
	structs.ACLPolicyDeleteRequestType:      structs.TypeACLPolicyDeleted,
	structs.ACLTokenUpsertRequestType:       structs.TypeACLTokenUpserted,
	structs.ACLTokenDeleteRequestType:       structs.TypeACLTokenDeleted,
	structs.ACLTokenBootstrapRequestType:    structs.TypeACLTokenUpserted,
	structs.ACLRoleUpsertRequestType:        structs.TypeACLRoleUpserted,
	structs.ACLRoleDeleteRequestType:        structs.TypeACLRoleDeleted,
	structs.ACLAuthMethodUpsertRequestType:  structs.TypeACLAuthMethodUpserted,
	structs.ACLAuthMethodDeleteRequestType:  structs.TypeACLAuthMethodDeleted,
	structs.ACLBindingRuleUpsertRequestType: structs.TypeACLBindingRuleUpserted,
	structs.ACLBindingRuleDeleteRequestType: structs.TypeACLBindingRuleDeleted,
}

// aclEvent converts a changed ACL object: the type says whether it was
// written or deleted; secrets are left out (a token's SecretID, an auth
// method's OIDCClientSecret), as Nomad's ACL events.
func aclEvent(obj any, deleted bool) (structs.Event, bool) {
	pick := func(up, del string) string {
		if deleted {
			return del
		}
		return up
	}
	switch v := obj.(type) {
	case *structs.ACLToken:
		c := *v
		c.SecretID = ""
		return structs.Event{Topic: structs.TopicACLToken, Type: pick(structs.TypeACLTokenUpserted, structs.TypeACLTokenDeleted),
			Key: v.AccessorID, Payload: &structs.ACLTokenEvent{ACLToken: &c}}, true
	case *structs.ACLPolicy:
		return structs.Event{Topic: structs.TopicACLPolicy, Type: pick(structs.TypeACLPolicyUpserted, structs.TypeACLPolicyDeleted),
			Key: v.Name, Payload: &structs.ACLPolicyEvent{ACLPolicy: v}}, true
	case *structs.ACLRole:
		return structs.Event{Topic: structs.TopicACLRole, Type: pick(structs.TypeACLRoleUpserted, structs.TypeACLRoleDeleted),
			Key: v.ID, Payload: &structs.ACLRoleEvent{ACLRole: v}}, true
	case *structs.ACLAuthMethod:
		c := v.Copy()
		if c.Config != nil {
			c.Config.OIDCClientSecret = ""
		}
		return structs.Event{Topic: structs.TopicACLAuthMethod, Type: pick(structs.TypeACLAuthMethodUpserted, structs.TypeACLAuthMethodDeleted),
			Key: v.Name, Payload: &structs.ACLAuthMethodEvent{AuthMethod: c}}, true
	case *structs.ACLBindingRule:
		return structs.Event{Topic: structs.TopicACLBindingRule, Type: pick(structs.TypeACLBindingRuleUpserted, structs.TypeACLBindingRuleDeleted),
			Key: v.ID, Payload: &structs.ACLBindingRuleEvent{BindingRule: v}}, true
	}
	return structs.Event{}, false
}

// entryChanges collects what the state store committed while one entry
// applies (an entry may commit more than one write), or while a batch
// commits (the writes of all its entries, in order).
type entryChanges struct {
	mu        sync.Mutex
	publisher EventPublisher
	// writes holds each committed write's changes.
	writes []memdb.Changes
}

// SetEventPublisher makes the FSM publish one event batch per applied
// entry, built from the objects the entry changed, so that every server
// publishes the same stream.
func (f *FSM) SetEventPublisher(p EventPublisher) {
	f.events.mu.Lock()
	f.events.publisher = p
	f.events.mu.Unlock()
	if p == nil {
		f.state.SetCommitObserver(nil)
		return
	}
	f.state.SetCommitObserver(func(_ uint64, changes memdb.Changes) {
		f.events.mu.Lock()
		f.events.writes = append(f.events.writes, changes)
		f.events.mu.Unlock()
	})
}

// take returns and forgets the changes of the first n collected writes
// (all of them when n < 0).
func (c *entryChanges) take(n int) (EventPublisher, []memdb.Changes) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n < 0 || n > len(c.writes) {
		n = len(c.writes)
	}
	writes := c.writes[:n:n]
	c.writes = c.writes[n:]
	if len(c.writes) == 0 {
		c.writes = nil
	}
	return c.publisher, writes
}

// publishEntryEvents turns the changes of the entry just applied (its
// writes: the first n collected, or all when n < 0) into its event batch.
// When the entry failed, its changes (none were committed by the failing
// write, but earlier writes of the entry may have been) are still what the
// state now holds, so they are published all the same.
func (f *FSM) publishEntryEvents(t structs.MessageType, index uint64, n int) {
	p, writes := f.events.take(n)
	total := 0
	for _, changes := range writes {
		total += len(changes)
	}
	if p == nil || total == 0 {
		return
	}
	eventType, ok := entryEventTypes[t]
	if !ok {
		return
	}
	batch := &structs.Events{Index: index}
	for _, changes := range writes {
		for _, c := range changes {
			if e, ok := eventFromChange(c, eventType); ok {
				e.Index = index
				batch.Events = append(batch.Events, e)
			}
		}
	}
	p.Publish(batch)
}

// eventFromChange converts one changed row; rows of bookkeeping tables
// (index, job versions, scheduler config) give no event.
func eventFromChange(c memdb.Change, eventType string) (structs.Event, bool) {
	obj := c.After
	if c.Deleted() {
		obj = c.Before
	}
	switch v := obj.(type) {
	case *structs.Job:
		if c.Table != state.TableJobs {
			return structs.Event{}, false
		}
		return structs.Event{Topic: structs.TopicJob, Type: eventType, Key: v.ID, Namespace: v.Namespace,
			Payload: &structs.JobEvent{Job: v, Deleted: c.Deleted()}}, true
	case *structs.Evaluation:
		switch {
		case c.Deleted():
			eventType = structs.TypeEvalDeleted
		case eventType == structs.TypePlanResult && v.TerminalStatus():
			// The plan's own eval, finished by its entry
			// (structs.Plan.FinalEval): subscribers see its final status
			// as the worker's write would have shown it.
			eventType = structs.TypeEvalUpdated
		}
		return structs.Event{Topic: structs.TopicEvaluation, Type: eventType, Key: v.ID, Namespace: v.Namespace,
			FilterKeys: structs.EventFilterKeys(v.JobID, v.DeploymentID), Payload: &structs.EvaluationEvent{Evaluation: v}}, true
	case *structs.Allocation:
		if c.Deleted() {
			return structs.Event{}, false // garbage collected, not a state change anyone watches
		}
		return structs.Event{Topic: structs.TopicAllocation, Type: eventType, Key: v.ID, Namespace: v.Namespace,
			FilterKeys: structs.EventFilterKeys(v.JobID, v.DeploymentID), Payload: &structs.AllocationEvent{Allocation: v}}, true
	case *structs.Deployment:
		if c.Deleted() {
			return structs.Event{}, false
		}
		return structs.Event{Topic: structs.TopicDeployment, Type: eventType, Key: v.ID, Namespace: v.Namespace,
			FilterKeys: structs.EventFilterKeys(v.JobID), Payload: &structs.DeploymentEvent{Deployment: v}}, true
	case *structs.Node:
		return structs.Event{Topic: structs.TopicNode, Type: eventType, Key: v.ID,
			Payload: &structs.NodeStreamEvent{Node: v}}, true
	case *structs.ServiceRegistration:
		return serviceEvent(v, c.Deleted()), true
	case *structs.NodePool:
		// A pool also appears when a node registers into it: its event
		// says what happened to the pool, whatever the entry was.
		poolType := structs.TypeNodePoolUpserted
		if c.Deleted() {
			poolType = structs.TypeNodePoolDeleted
		}
		return structs.Event{Topic: structs.TopicNodePool, Type: poolType, Key: v.Name,
			Payload: &structs.NodePoolEvent{NodePool: v}}, true
	}
	return aclEvent(obj, c.Deleted())
}
