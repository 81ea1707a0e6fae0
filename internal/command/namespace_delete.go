package command

import "github.com/hashicorp/nomad/api"

func init() { register("namespace delete", namespaceDeleteCmd) }

func namespaceDeleteCmd() *cmd {
	return deleteOne(&cmd{Name: "namespace delete", Args: "<namespace>", Synopsis: "Delete a namespace (it must have no jobs)"},
		func(cl *api.Client, name string, w *api.WriteOptions) error {
			_, err := cl.Namespaces().Delete(name, w)
			return err
		}, "deleting namespace", "Successfully deleted namespace %q!\n")
}
