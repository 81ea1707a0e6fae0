package server

import (
	"context"
	"fmt"
	"slices"

	"github.com/drover-project/drover/internal/structs"
)

// MaxDispatchPayload bounds a dispatch payload (Nomad's limit).
const MaxDispatchPayload = 16 * 1024

// Dispatch launches a child of a parameterized job with a payload and
// meta, checked against the parent's parameterized block, and registers
// it with its job-register eval in one entry.
func (e *JobEndpoint) Dispatch(ctx context.Context, args *structs.JobDispatchArgs) (*structs.JobDispatchResponse, error) {
	reply := &structs.JobDispatchResponse{}
	parent, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	if !parent.IsParameterized() {
		return nil, BadRequest("job %q is not a parameterized job", parent.ID)
	}
	if parent.Stop {
		return nil, BadRequest("job %q is stopped", parent.ID)
	}
	if err := checkDispatch(parent.ParameterizedJob, args); err != nil {
		return nil, err
	}
	child := e.dispatchedChild(parent, args)
	written, err := e.writeWithEval(child, structs.EvalTriggerJobRegister, nil)
	if err != nil {
		return nil, err
	}
	reply.DispatchedJobID, reply.EvalID, reply.EvalCreateIndex = child.ID, written.EvalID, written.EvalCreateIndex
	reply.JobCreateIndex, reply.Index = written.Index, written.Index
	return reply, nil
}

// checkDispatch enforces the payload mode and the meta keys.
func checkDispatch(p *structs.ParameterizedJobConfig, args *structs.JobDispatchArgs) error {
	switch {
	case len(args.Payload) > MaxDispatchPayload:
		return BadRequest("Payload: %d bytes exceeds the %d byte limit", len(args.Payload), MaxDispatchPayload)
	case p.Payload == structs.DispatchPayloadForbidden && len(args.Payload) > 0:
		return BadRequest("Payload: the job forbids a payload")
	case p.Payload == structs.DispatchPayloadRequired && len(args.Payload) == 0:
		return BadRequest("Payload: the job requires a payload")
	}
	for _, k := range p.MetaRequired {
		if _, ok := args.Meta[k]; !ok {
			return BadRequest("Meta: required key %q is missing", k)
		}
	}
	for k := range args.Meta {
		if !slices.Contains(p.MetaRequired, k) && !slices.Contains(p.MetaOptional, k) {
			return BadRequest("Meta: key %q is neither required nor optional for this job", k)
		}
	}
	if args.Priority != 0 && (args.Priority < structs.JobMinPriority || args.Priority > structs.JobMaxPriority) {
		return BadRequest("Priority: %d is outside [%d, %d]", args.Priority, structs.JobMinPriority, structs.JobMaxPriority)
	}
	return nil
}

// dispatchedChild derives the child: parent/dispatch-<unix>-<random>.
func (e *JobEndpoint) dispatchedChild(parent *structs.Job, args *structs.JobDispatchArgs) *structs.Job {
	c := parent.Copy()
	clearServerOwnedFields(c)
	now := e.srv.now()
	prefix := parent.ID
	if args.IDPrefix != "" {
		prefix += "/" + args.IDPrefix
	}
	c.ID = fmt.Sprintf("%s/dispatch-%d-%s", prefix, now.Unix(), e.srv.config.NewID()[:8])
	c.Name, c.ParentID, c.Dispatched, c.Payload = c.ID, parent.ID, true, args.Payload
	if args.Priority != 0 {
		c.Priority = args.Priority
	}
	if len(args.Meta) > 0 && c.Meta == nil {
		c.Meta = map[string]string{}
	}
	for k, v := range args.Meta {
		c.Meta[k] = v
	}
	return c
}
