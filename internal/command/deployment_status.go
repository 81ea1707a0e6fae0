package command

func init() { register("deployment status", deploymentStatusCmd) }

func deploymentStatusCmd() *cmd {
	c := &cmd{
		Name: "deployment status", Args: "<deployment>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display the status of a deployment",
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveDeployment(args[0])
		if err != nil {
			return err
		}
		cl, _ := e.api()
		d, _, err := cl.Deployments().Info(id, e.query())
		if err != nil {
			return apiError("reading deployment "+id, err)
		}
		return e.output(d, func() error {
			writeKV(e.stdout, [][2]string{
				{"ID", e.short(d.ID)}, {"Job ID", d.JobID}, {"Job Version", itoa(int(d.JobVersion))},
				{"Status", d.Status}, {"Description", d.StatusDescription},
			})
			deploymentGroups(e.stdout, d)
			return nil
		})
	}
	return c
}
