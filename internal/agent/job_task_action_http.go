package agent

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/structs"
)

// jobActionStub is one entry of GET /v1/job/:id/actions: a task's action
// with the task and group that define it, in Nomad's JobAction shape.
type jobActionStub struct {
	Name          string
	Command       string
	Args          []string
	TaskName      string
	TaskGroupName string
}

// jobActionList answers GET /v1/job/:id/actions: every action of the
// job's current version, in group and task order.
func (h *HTTPServer) jobActionList(w http.ResponseWriter, r *http.Request) (any, error) {
	id := r.PathValue("id")
	reply, err := readEndpoint(w, r, server.JobGetJob.On(h.srv), &structs.JobSpecificRequest{JobID: id})
	return oneOf(reply.Job, jobActionStubs, err, "job %q not found", id)
}

func jobActionStubs(j *structs.Job) *[]*jobActionStub {
	out := []*jobActionStub{}
	for _, tg := range j.TaskGroups {
		for _, t := range tg.Tasks {
			for _, a := range t.Actions {
				out = append(out, &jobActionStub{Name: a.Name, Command: a.Command, Args: a.Args,
					TaskName: t.Name, TaskGroupName: tg.Name})
			}
		}
	}
	return &out
}

// jobActionRun answers the websocket GET /v1/job/:id/action: it runs the
// named action of the alloc's task over the exec protocol of
// /v1/client/allocation/:id/exec. The action's command and args replace
// any command the caller sends, which is the point: alloc-exec on the
// namespace lets an operator run what the job's author allowed.
func (h *HTTPServer) jobActionRun(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	name, allocID, task := q.Get("action"), q.Get("allocID"), q.Get("task")
	switch {
	case name == "":
		return nil, server.BadRequest("action: an action name is required")
	case allocID == "":
		return nil, server.BadRequest("allocID: the allocation to run the action in is required")
	case task == "":
		return nil, server.BadRequest("task: a task name is required")
	}
	tty, err := boolParam(r, "tty")
	if err != nil {
		return nil, err
	}
	alloc, err := h.actionAlloc(r, allocID)
	if err != nil {
		return nil, err
	}
	command, err := actionCommand(alloc, r.PathValue("id"), q.Get("group"), task, name)
	if err != nil {
		return nil, err
	}
	if c := h.client(); c != nil && c.HasAlloc(allocID) {
		if h.remoteExecOff {
			return nil, errRemoteExecOff
		}
		h.serveExec(w, r, c, allocID, task, command, tty)
		return nil, nil
	}
	return nil, h.forwardActionExec(w, r, allocID, task, command, tty)
}

// actionAlloc looks the alloc up with the agent's own token: the route
// authorized alloc-exec in the request's namespace, so an alloc of another
// namespace is reported as not found rather than run.
func (h *HTTPServer) actionAlloc(r *http.Request, allocID string) (*structs.Allocation, error) {
	internal := structs.QueryOptions{AuthToken: h.srv.Auth().InternalToken(), AllowStale: true}
	reply, err := server.AllocGetAlloc.Call(r.Context(), h.srv, &structs.AllocSpecificRequest{AllocID: allocID, QueryOptions: internal})
	if err != nil {
		return nil, err
	}
	alloc := reply.Alloc
	if alloc == nil || alloc.Namespace != writeRequest(r).Namespace {
		return nil, server.NotFound("allocation %q not found", allocID)
	}
	return alloc, nil
}

// actionCommand finds the action in the alloc's own version of the job
// (what the task runs, not the latest) and returns its command line.
func actionCommand(alloc *structs.Allocation, jobID, group, task, name string) ([]string, error) {
	if alloc.JobID != jobID {
		return nil, server.BadRequest("allocID: allocation %q belongs to job %q, not %q", alloc.ID, alloc.JobID, jobID)
	}
	if group != "" && group != alloc.TaskGroup {
		return nil, server.BadRequest("group: allocation %q runs group %q, not %q", alloc.ID, alloc.TaskGroup, group)
	}
	if alloc.Job == nil {
		return nil, server.NotFound("allocation %q: its job is not known", alloc.ID)
	}
	tg := alloc.Job.LookupTaskGroup(alloc.TaskGroup)
	var t *structs.Task
	if tg != nil {
		t = tg.LookupTask(task)
	}
	if t == nil {
		return nil, server.NotFound("task %q is not in group %q of job %q", task, alloc.TaskGroup, jobID)
	}
	action := t.Action(name)
	if action == nil {
		return nil, server.NotFound("action %q is not defined in task %q of job %q", name, task, jobID)
	}
	return append([]string{action.Command}, action.Args...), nil
}

// forwardActionExec hands the resolved command to the alloc's node as an
// ordinary exec request: the node's agent may run no server, so it could
// not resolve the action itself, and both need the same capability.
func (h *HTTPServer) forwardActionExec(w http.ResponseWriter, r *http.Request, allocID, task string, command []string, tty bool) error {
	encoded, err := json.Marshal(command)
	if err != nil {
		return err
	}
	q := url.Values{}
	for _, keep := range []string{"namespace", "region"} {
		if v := r.URL.Query().Get(keep); v != "" {
			q.Set(keep, v)
		}
	}
	q.Set("task", task)
	q.Set("command", string(encoded))
	q.Set("tty", boolString(tty))
	out := r.Clone(r.Context())
	out.URL.Path = "/v1/client/allocation/" + url.PathEscape(allocID) + "/exec"
	out.URL.RawPath = ""
	out.URL.RawQuery = q.Encode()
	return h.forwardToAllocNode(w, out, allocID)
}
