package command

import "fmt"

func init() { register("operator raft list-peers", operatorRaftPeersCmd) }

func operatorRaftPeersCmd() *cmd {
	c := &cmd{
		Name: "operator raft list-peers", Read: true,
		Synopsis: "Display the raft peer configuration",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		conf, err := cl.Operator().RaftGetConfiguration(e.query())
		if err != nil {
			return apiError("reading the raft configuration", err)
		}
		return e.output(conf, func() error {
			rows := [][]string{{"Node", "ID", "Address", "State", "Voter", "Raft Protocol"}}
			for _, s := range conf.Servers {
				state := "follower"
				if s.Leader {
					state = "leader"
				}
				rows = append(rows, []string{s.Node, s.ID, s.Address, state, fmt.Sprint(s.Voter), s.RaftProtocol})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}
