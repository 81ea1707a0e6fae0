package server

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// PeriodicForce launches a periodic job now, as `job periodic force` does.
func (e *JobEndpoint) PeriodicForce(ctx context.Context, args *structs.JobPeriodicForceArgs) (*structs.JobPeriodicForceResponse, error) {
	reply := &structs.JobPeriodicForceResponse{}
	job, err := e.lookup(args.Namespace, args.JobID)
	if err != nil {
		return nil, err
	}
	if !job.IsPeriodic() {
		return nil, BadRequest("job %q is not periodic", job.ID)
	}
	launched, err := e.srv.leader.LaunchPeriodic(job, e.srv.now())
	if err != nil {
		return nil, err
	}
	if launched == nil {
		return nil, BadRequest("job %q was not launched: a child is still running (prohibit_overlap) or one was launched this second", job.ID)
	}
	reply.EvalID, reply.EvalCreateIndex, reply.Index = launched.EvalID, launched.EvalCreateIndex, launched.Index
	return reply, nil
}
