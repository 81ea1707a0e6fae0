package server

// StatusEndpoint is the Status.* endpoint family.
type StatusEndpoint struct{ srv *Server }

// Leader returns the leader's raft address, or "" without a leader.
func (e *StatusEndpoint) Leader() string { return e.srv.Leader() }

// Peers returns the raft addresses of the voting servers.
func (e *StatusEndpoint) Peers() ([]string, error) {
	f := e.srv.raft.GetConfiguration()
	if err := f.Error(); err != nil {
		return nil, err
	}
	var peers []string
	for _, srv := range f.Configuration().Servers {
		peers = append(peers, string(srv.Address))
	}
	return peers, nil
}
