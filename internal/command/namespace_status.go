package command

func init() { register("namespace status", namespaceStatusCmd) }

func namespaceStatusCmd() *cmd {
	c := &cmd{
		Name: "namespace status", Args: "<namespace>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Display a namespace's details",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		ns, _, err := cl.Namespaces().Info(args[0], e.query())
		if err != nil {
			return apiError("reading namespace", err)
		}
		return e.output(ns, func() error {
			writeKV(e.stdout, [][2]string{{"Name", ns.Name}, {"Description", ns.Description}, {"Quota", ns.Quota}})
			if len(ns.Meta) > 0 {
				heading(e.stdout, "Metadata")
				var pairs [][2]string
				for _, k := range sortedKeys(ns.Meta) {
					pairs = append(pairs, [2]string{k, ns.Meta[k]})
				}
				writeKV(e.stdout, pairs)
			}
			return nil
		})
	}
	return c
}
