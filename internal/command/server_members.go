package command

import (
	"fmt"
	"sort"
)

func init() { register("server members", serverMembersCmd) }

func serverMembersCmd() *cmd {
	c := &cmd{
		Name: "server members", Read: true,
		Synopsis: "Display the servers of the cluster",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		m, err := cl.Agent().MembersOpts(e.query())
		if err != nil {
			return apiError("listing server members", err)
		}
		leader, _ := cl.Status().Leader()
		return e.output(m, func() error {
			sort.Slice(m.Members, func(i, j int) bool { return m.Members[i].Name < m.Members[j].Name })
			rows := [][]string{{"Name", "Address", "Port", "Status", "Leader", "Build", "Datacenter", "Region"}}
			for _, s := range m.Members {
				isLeader := leader != "" && s.Tags["rpc_addr"] != "" && leader == s.Tags["rpc_addr"]+":"+s.Tags["port"]
				rows = append(rows, []string{s.Name, s.Addr, fmt.Sprint(s.Port), s.Status, fmt.Sprint(isLeader),
					s.Tags["build"], s.Tags["dc"], s.Tags["region"]})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}
