package command

import (
	"flag"
	"fmt"
	"time"

	"github.com/hashicorp/nomad/api"
)

// The cluster's membership and raft commands: server join / force-leave,
// operator raft remove-peer / transfer-leadership, operator autopilot.

func init() {
	register("server join", serverJoinCmd)
	register("server force-leave", serverForceLeaveCmd)
	register("operator raft remove-peer", operatorRaftRemovePeerCmd)
	register("operator raft transfer-leadership", operatorRaftTransferCmd)
	register("operator autopilot get-config", operatorAutopilotGetCmd)
	register("operator autopilot set-config", operatorAutopilotSetCmd)
	register("operator autopilot health", operatorAutopilotHealthCmd)
}

func serverJoinCmd() *cmd {
	c := &cmd{
		Name: "server join", Args: "ADDRESS...", MinArgs: 1, MaxArgs: -1,
		Synopsis: "Join this server to others by their serf (gossip) addresses",
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 0 {
			return fmt.Errorf("server join: at least one address (host or host:port of a server's serf port) is required")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		n, err := cl.Agent().Join(args...)
		if err != nil {
			return apiError("joining", err)
		}
		fmt.Fprintf(e.stdout, "Joined %d servers successfully\n", n)
		return nil
	}
	return c
}

func serverForceLeaveCmd() *cmd {
	var prune bool
	c := &cmd{
		Name: "server force-leave", Args: "NODE", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Mark a failed server as left, removing it from raft",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&prune, "prune", false, "Forget the member at once.")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("server force-leave: exactly one member name is required")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		if err := cl.Agent().ForceLeaveWithOptions(args[0], api.ForceLeaveOpts{Prune: prune}); err != nil {
			return apiError("forcing "+args[0]+" to leave", err)
		}
		return nil
	}
	return c
}

// peerFlags are -peer-id and -peer-address, one of which names a server.
type peerFlags struct{ id, address string }

func (p *peerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.id, "peer-id", "", "The raft ID of the server.")
	fs.StringVar(&p.address, "peer-address", "", "The raft (rpc) address of the server, host:port.")
}

func operatorRaftRemovePeerCmd() *cmd {
	var p peerFlags
	c := &cmd{Name: "operator raft remove-peer", Synopsis: "Remove a server from the raft configuration"}
	c.Flags = p.register
	c.Run = func(e *env, args []string) error {
		if (p.id == "") == (p.address == "") {
			return fmt.Errorf("operator raft remove-peer: give exactly one of -peer-id or -peer-address")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		if p.id != "" {
			err = cl.Operator().RaftRemovePeerByID(p.id, nil)
		} else {
			err = cl.Operator().RaftRemovePeerByAddress(p.address, nil)
		}
		if err != nil {
			return apiError("removing the raft peer", err)
		}
		fmt.Fprintf(e.stdout, "Removed peer %s%s\n", p.id, p.address)
		return nil
	}
	return c
}

func operatorRaftTransferCmd() *cmd {
	var p peerFlags
	c := &cmd{Name: "operator raft transfer-leadership", Synopsis: "Hand leadership to another voter"}
	c.Flags = p.register
	c.Run = func(e *env, args []string) error {
		if p.id != "" && p.address != "" {
			return fmt.Errorf("operator raft transfer-leadership: give at most one of -peer-id or -peer-address")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		switch {
		case p.address != "":
			err = cl.Operator().RaftTransferLeadershipByAddress(p.address, nil)
		default:
			err = cl.Operator().RaftTransferLeadershipByID(p.id, nil)
		}
		if err != nil {
			return apiError("transferring leadership", err)
		}
		fmt.Fprintln(e.stdout, "Leadership transferred")
		return nil
	}
	return c
}

func operatorAutopilotGetCmd() *cmd {
	c := &cmd{Name: "operator autopilot get-config", Read: true, Synopsis: "Display autopilot's configuration"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		conf, _, err := cl.Operator().AutopilotGetConfiguration(e.query())
		if err != nil {
			return apiError("reading the autopilot configuration", err)
		}
		return e.output(conf, func() error {
			writeColumns(e.stdout, [][]string{
				{"CleanupDeadServers", "=", fmt.Sprint(conf.CleanupDeadServers)},
				{"LastContactThreshold", "=", conf.LastContactThreshold.String()},
				{"MaxTrailingLogs", "=", fmt.Sprint(conf.MaxTrailingLogs)},
				{"MinQuorum", "=", fmt.Sprint(conf.MinQuorum)},
				{"ServerStabilizationTime", "=", conf.ServerStabilizationTime.String()},
			})
			return nil
		})
	}
	return c
}

func operatorAutopilotSetCmd() *cmd {
	var (
		cleanup                optBool
		lastContact, stabilize time.Duration
		maxTrailing, minQuorum int
	)
	c := &cmd{
		Name: "operator autopilot set-config", Synopsis: "Change autopilot's configuration",
		Help: "Reads the current configuration, changes only the options given, and writes it back\n(check-and-set, so a concurrent change is not overwritten).",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.Var(&cleanup, "cleanup-dead-servers", "Remove failed servers from raft (true or false).")
		fs.DurationVar(&lastContact, "last-contact-threshold", 0, "Longest time a healthy server goes without leader contact.")
		fs.DurationVar(&stabilize, "server-stabilization-time", 0, "How long a new server must be healthy before it votes.")
		fs.IntVar(&maxTrailing, "max-trailing-logs", -1, "Most log entries a healthy server may lag.")
		fs.IntVar(&minQuorum, "min-quorum", -1, "Fewest servers autopilot keeps when pruning dead ones.")
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		conf, _, err := cl.Operator().AutopilotGetConfiguration(nil)
		if err != nil {
			return apiError("reading the autopilot configuration", err)
		}
		cleanup.apply(&conf.CleanupDeadServers)
		if lastContact > 0 {
			conf.LastContactThreshold = lastContact
		}
		if stabilize > 0 {
			conf.ServerStabilizationTime = stabilize
		}
		if maxTrailing >= 0 {
			conf.MaxTrailingLogs = uint64(maxTrailing)
		}
		if minQuorum >= 0 {
			conf.MinQuorum = uint(minQuorum)
		}
		ok, _, err := cl.Operator().AutopilotCASConfiguration(conf, nil)
		if err != nil {
			return apiError("writing the autopilot configuration", err)
		}
		if !ok {
			return fmt.Errorf("the autopilot configuration changed meanwhile; run the command again")
		}
		fmt.Fprintln(e.stdout, "Configuration updated!")
		return nil
	}
	return c
}

func operatorAutopilotHealthCmd() *cmd {
	c := &cmd{Name: "operator autopilot health", Read: true, Synopsis: "Display the servers' health as autopilot sees it"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		h, _, err := cl.Operator().AutopilotServerHealth(e.query())
		if err != nil {
			return apiError("reading the servers' health", err)
		}
		return e.output(h, func() error {
			fmt.Fprintf(e.stdout, "Healthy: %v, failure tolerance: %d\n\n", h.Healthy, h.FailureTolerance)
			rows := [][]string{{"Name", "ID", "Address", "Serf", "Leader", "Voter", "Healthy", "Last Contact", "Last Index"}}
			for _, s := range h.Servers {
				rows = append(rows, []string{s.Name, s.ID, s.Address, s.SerfStatus, fmt.Sprint(s.Leader), fmt.Sprint(s.Voter),
					fmt.Sprint(s.Healthy), s.LastContact.String(), fmt.Sprint(s.LastIndex)})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}
