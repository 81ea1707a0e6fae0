package command

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("namespace list", namespaceListCmd) }

func namespaceListCmd() *cmd {
	c := &cmd{Name: "namespace list", Read: true, Synopsis: "List namespaces"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		list, _, err := cl.Namespaces().List(e.query())
		if err != nil {
			return apiError("listing namespaces", err)
		}
		return e.output(list, func() error { namespaceTable(e, list); return nil })
	}
	return c
}

func namespaceTable(e *env, list []*api.Namespace) {
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "No namespaces found")
		return
	}
	rows := [][]string{{"Name", "Description"}}
	for _, ns := range list {
		rows = append(rows, []string{ns.Name, ns.Description})
	}
	writeColumns(e.stdout, rows)
}
