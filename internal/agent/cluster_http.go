package agent

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/server/cluster"
	"github.com/drover-project/drover/internal/structs"
)

func (h *HTTPServer) agentMembers(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := server.ClusterMembers.Call(r.Context(), h.srv, &structs.ClusterMembersRequest{})
	if err != nil {
		return nil, err
	}
	out := &api.ServerMembers{ServerName: reply.ServerName, ServerRegion: reply.ServerRegion, ServerDC: reply.ServerDC, Members: []*api.AgentMember{}}
	for _, m := range reply.Members {
		out.Members = append(out.Members, &api.AgentMember{
			Name: m.Name, Addr: m.Addr, Port: m.Port, Tags: m.Tags, Status: m.Status,
			ProtocolMin: m.ProtocolMin, ProtocolMax: m.ProtocolMax, ProtocolCur: m.ProtocolCur,
			DelegateMin: m.DelegateMin, DelegateMax: m.DelegateMax, DelegateCur: m.DelegateCur,
		})
	}
	return out, nil
}

// joinResponse is Nomad's answer to PUT /v1/agent/join.
type joinResponse struct {
	NumJoined int    `json:"num_joined"`
	Error     string `json:"error"`
}

func (h *HTTPServer) agentJoin(w http.ResponseWriter, r *http.Request) (any, error) {
	addrs := r.URL.Query()["address"]
	if len(addrs) == 0 {
		return nil, server.BadRequest("address: at least one ?address= to join is required")
	}
	reply, err := h.srv.Join(r.Context(), &structs.ClusterJoinRequest{Addrs: addrs})
	if err != nil {
		if server.ErrorCode(err) != http.StatusInternalServerError {
			return nil, err
		}
		// Nomad reports a failed join in the body with 200.
		return &joinResponse{Error: err.Error()}, nil
	}
	return &joinResponse{NumJoined: reply.NumJoined}, nil
}

func (h *HTTPServer) agentForceLeave(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	prune, _ := strconv.ParseBool(q.Get("prune"))
	_, err := h.srv.ForceLeave(r.Context(), &structs.ForceLeaveRequest{Node: q.Get("node"), Prune: prune})
	return nil, err
}

// agentKeyring answers /v1/agent/keyring/<op> (Nomad's shapes: a
// KeyringRequest body, a KeyringResponse answer).
func (h *HTTPServer) agentKeyring(op string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		args := &structs.GossipKeyringRequest{Op: op, WriteRequest: writeRequest(r)}
		if op != cluster.KeyringList {
			var body api.KeyringRequest
			if err := decodeBody(w, r, &body); err != nil {
				return nil, err
			}
			args.Key = body.Key
		}
		reply, err := server.ClusterGossipKeyring.Call(r.Context(), h.srv, args)
		if err != nil {
			return nil, err
		}
		return &api.KeyringResponse{Messages: reply.Messages, Keys: reply.Keys, NumNodes: reply.NumNodes}, nil
	}
}

func (h *HTTPServer) raftRemovePeer(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	_, err := server.ClusterRemoveRaftPeer.Call(r.Context(), h.srv, &structs.RaftPeerRequest{ID: q.Get("id"), Address: q.Get("address"), WriteRequest: writeRequest(r)})
	return nil, err
}

func (h *HTTPServer) raftTransferLeadership(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	_, err := server.ClusterTransferLeadership.Call(r.Context(), h.srv, &structs.RaftPeerRequest{ID: q.Get("id"), Address: q.Get("address"), WriteRequest: writeRequest(r)})
	return nil, err
}

func (h *HTTPServer) autopilotGet(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ClusterAutopilotGetConfiguration.On(h.srv), &structs.AutopilotConfigRequest{})
	if err != nil {
		return nil, err
	}
	c := reply.Config
	return &api.AutopilotConfiguration{
		CleanupDeadServers: c.CleanupDeadServers, LastContactThreshold: c.LastContactThreshold,
		MaxTrailingLogs: c.MaxTrailingLogs, MinQuorum: c.MinQuorum, ServerStabilizationTime: c.ServerStabilizationTime,
		EnableRedundancyZones: c.EnableRedundancyZones, DisableUpgradeMigration: c.DisableUpgradeMigration,
		EnableCustomUpgrades: c.EnableCustomUpgrades, CreateIndex: c.CreateIndex, ModifyIndex: c.ModifyIndex,
	}, nil
}

// autopilotSet answers PUT /v1/operator/autopilot/configuration; with
// ?cas=N it applies only if the current ModifyIndex is N, and the body is
// the bare boolean Nomad returns.
func (h *HTTPServer) autopilotSet(w http.ResponseWriter, r *http.Request) (any, error) {
	in, err := decodeAutopilotBody(w, r)
	if err != nil {
		return nil, err
	}
	args := &structs.AutopilotSetConfigRequest{Config: in, WriteRequest: writeRequest(r)}
	if q := r.URL.Query(); q.Has("cas") {
		idx, err := strconv.ParseUint(q.Get("cas"), 10, 64)
		if err != nil {
			return nil, server.BadRequest("cas: %q is not an index", q.Get("cas"))
		}
		args.CAS, args.Config.ModifyIndex = true, idx
	}
	reply, err := server.ClusterAutopilotSetConfiguration.Call(r.Context(), h.srv, args)
	if err != nil {
		return nil, err
	}
	w.Header().Set("X-Nomad-Index", uintString(reply.Index))
	return reply.Updated, nil
}

// autopilotFields is api.AutopilotConfiguration without its JSON methods,
// whose duration errors do not say which field was bad.
type autopilotFields api.AutopilotConfiguration

// autopilotBody is the request body with its durations still raw (the
// outer fields shadow the embedded ones).
type autopilotBody struct {
	autopilotFields
	LastContactThreshold    any
	ServerStabilizationTime any
}

// decodeAutopilotBody reads the configuration, naming a bad field.
func decodeAutopilotBody(w http.ResponseWriter, r *http.Request) (structs.AutopilotConfig, error) {
	var in autopilotBody
	if err := decodeBody(w, r, &in); err != nil {
		return structs.AutopilotConfig{}, err
	}
	lastContact, err := autopilotDuration("LastContactThreshold", in.LastContactThreshold)
	if err != nil {
		return structs.AutopilotConfig{}, err
	}
	stabilization, err := autopilotDuration("ServerStabilizationTime", in.ServerStabilizationTime)
	if err != nil {
		return structs.AutopilotConfig{}, err
	}
	return structs.AutopilotConfig{
		CleanupDeadServers: in.CleanupDeadServers, LastContactThreshold: lastContact,
		MaxTrailingLogs: in.MaxTrailingLogs, MinQuorum: in.MinQuorum, ServerStabilizationTime: stabilization,
		EnableRedundancyZones: in.EnableRedundancyZones, DisableUpgradeMigration: in.DisableUpgradeMigration,
		EnableCustomUpgrades: in.EnableCustomUpgrades,
	}, nil
}

// autopilotDuration reads a duration as Nomad's API sends it: a string
// ("200ms"), or nanoseconds as a number.
func autopilotDuration(field string, v any) (time.Duration, error) {
	switch d := v.(type) {
	case nil:
		return 0, nil
	case float64:
		return time.Duration(d), nil
	case string:
		out, err := time.ParseDuration(d)
		if err != nil {
			return 0, server.BadRequest("invalid autopilot configuration: %s: %q is not a duration", field, d)
		}
		return out, nil
	}
	return 0, server.BadRequest("invalid autopilot configuration: %s: expected a duration, got %T", field, v)
}

func (h *HTTPServer) autopilotHealth(w http.ResponseWriter, r *http.Request) (any, error) {
	reply, err := readEndpoint(w, r, server.ClusterServerHealth.On(h.srv), &structs.OperatorHealthRequest{})
	if err != nil {
		return nil, err
	}
	out := &api.OperatorHealthReply{Healthy: reply.Healthy, FailureTolerance: reply.FailureTolerance, Servers: []api.ServerHealth{}}
	for _, s := range reply.Servers {
		out.Servers = append(out.Servers, api.ServerHealth{
			ID: s.ID, Name: s.Name, Address: s.Address, SerfStatus: s.SerfStatus, Version: s.Version,
			Leader: s.Leader, LastContact: s.LastContact, LastTerm: s.LastTerm, LastIndex: s.LastIndex,
			Healthy: s.Healthy, Voter: s.Voter, StableSince: s.StableSince,
		})
		if s.Leader {
			out.Leader = s.ID
		}
		if s.Voter {
			out.Voters = append(out.Voters, s.ID)
		}
	}
	return out, nil
}
