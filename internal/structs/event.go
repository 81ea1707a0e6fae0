package structs

import "strings"

// Topic is the kind of object an event is about, as Nomad's event stream
// names it.
type Topic string

// The topics of the event stream.
const (
	TopicJob        Topic = "Job"
	TopicEvaluation Topic = "Evaluation"
	TopicAllocation Topic = "Allocation"
	TopicDeployment Topic = "Deployment"
	TopicNode       Topic = "Node"
	TopicNodePool   Topic = "NodePool"
	TopicService    Topic = "Service"
	TopicAll        Topic = "*"
	// ACL topics (Nomad's): management tokens only.
	TopicACLToken       Topic = "ACLToken"
	TopicACLPolicy      Topic = "ACLPolicy"
	TopicACLRole        Topic = "ACLRole"
	TopicACLAuthMethod  Topic = "ACLAuthMethod"
	TopicACLBindingRule Topic = "ACLBindingRule"
)

// ACLTopic reports whether t is one of the ACL topics.
func ACLTopic(t Topic) bool {
	switch t {
	case TopicACLToken, TopicACLPolicy, TopicACLRole, TopicACLAuthMethod, TopicACLBindingRule:
		return true
	}
	return false
}

// KnownTopic reports whether t is a topic a subscriber may ask for.
func KnownTopic(t Topic) bool {
	switch t {
	case TopicJob, TopicEvaluation, TopicAllocation, TopicDeployment,
		TopicNode, TopicNodePool, TopicService, TopicAll:
		return true
	}
	return ACLTopic(t)
}

// Event types. The raft-applied ones are Nomad's names: every change an
// entry made gets the entry's type (an eval written by a job register is
// an Evaluation event of type JobRegistered, as in Nomad). The
// Evaluation<QuasiStatus> types are Drover's: the leader's view of an eval
// moving through the pipeline, which no raft entry records.
const (
	TypeJobRegistered                 = "JobRegistered"
	TypeJobDeregistered               = "JobDeregistered"
	TypeJobBatchDeregistered          = "JobBatchDeregistered"
	TypeEvalUpdated                   = "EvaluationUpdated"
	TypeAllocationUpdated             = "AllocationUpdated"
	TypeAllocationUpdateDesiredStatus = "AllocationUpdateDesiredStatus"
	TypePlanResult                    = "PlanResult"
	TypeDeploymentUpdate              = "DeploymentStatusUpdate"
	TypeDeploymentPromotion           = "DeploymentPromotion"
	TypeDeploymentAllocHealth         = "DeploymentAllocHealth"
	TypeNodeRegistration              = "NodeRegistration"
	TypeNodeDeregistration            = "NodeDeregistration"
	TypeNodeEligibility               = "NodeEligibility"
	TypeNodeDrain                     = "NodeDrain"
	TypeNodeEvent                     = "NodeEvent"
	TypeSchedulerConfig               = "SchedulerConfigUpdated"
	TypeEvalDeleted                   = "EvaluationDeleted"
	// ACL events: the type says what happened to the object, whatever
	// the entry (a role delete also updates the tokens linking it).
	TypeACLTokenUpserted       = "ACLTokenUpserted"
	TypeACLTokenDeleted        = "ACLTokenDeleted"
	TypeACLPolicyUpserted      = "ACLPolicyUpserted"
	TypeACLPolicyDeleted       = "ACLPolicyDeleted"
	TypeACLRoleUpserted        = "ACLRoleUpserted"
	TypeACLRoleDeleted         = "ACLRoleDeleted"
	TypeACLAuthMethodUpserted  = "ACLAuthMethodUpserted"
	TypeACLAuthMethodDeleted   = "ACLAuthMethodDeleted"
	TypeACLBindingRuleUpserted = "ACLBindingRuleUpserted"
	TypeACLBindingRuleDeleted  = "ACLBindingRuleDeleted"
)

// ACLTokenEvent carries a token with its SecretID removed (as Nomad's).
type ACLTokenEvent struct{ ACLToken *ACLToken }

// ACLPolicyEvent carries a policy.
type ACLPolicyEvent struct{ ACLPolicy *ACLPolicy }

// ACLRoleEvent carries a role.
type ACLRoleEvent struct{ ACLRole *ACLRole }

// ACLAuthMethodEvent carries an auth method with its OIDCClientSecret
// removed.
type ACLAuthMethodEvent struct{ AuthMethod *ACLAuthMethod }

// ACLBindingRuleEvent carries a binding rule.
type ACLBindingRuleEvent struct{ BindingRule *ACLBindingRule }

// EvalQuasiStatusEventType names the event of an eval entering a
// quasi-status: "EvaluationDelayed", "EvaluationScheduling", ...
func EvalQuasiStatusEventType(status string) string {
	if status == "" {
		return "Evaluation"
	}
	return "Evaluation" + strings.ToUpper(status[:1]) + status[1:]
}

// Event is one change seen by the event stream. Payload is one of the
// *XEvent types below; the HTTP layer renders it in Nomad's API shape.
type Event struct {
	Topic      Topic
	Type       string
	Key        string
	Namespace  string
	FilterKeys []string
	Index      uint64
	Payload    any
}

// Events is the batch of events of one raft index (or one quasi-status
// step, published at the latest applied index). An empty batch is a
// heartbeat.
type Events struct {
	Index  uint64
	Events []Event
}

// JobEvent carries a job; Deleted is set when a deregister purged it.
type JobEvent struct {
	Job     *Job
	Deleted bool
}

// EvaluationEvent carries an evaluation; Step is set on quasi-status
// events (the timeline entry with the worker that held the eval).
type EvaluationEvent struct {
	Evaluation *Evaluation
	Step       *EvalTimelineEntry
}

// AllocationEvent carries an allocation.
type AllocationEvent struct{ Allocation *Allocation }

// DeploymentEvent carries a deployment.
type DeploymentEvent struct{ Deployment *Deployment }

// NodeStreamEvent carries a node.
type NodeStreamEvent struct{ Node *Node }

// EventStreamRequest subscribes to the event stream. Topics maps a topic
// to the keys wanted ("*" for all); an empty map means every topic. Index
// is the raft index to start from (0: the oldest retained).
type EventStreamRequest struct {
	Topics map[Topic][]string
	Index  uint64
	QueryOptions
}

// EventFilterKeys returns the non-empty keys, for Event.FilterKeys (an
// eval's job and deployment, say, when it has both).
func EventFilterKeys(keys ...string) []string {
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}
