package command

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/hashicorp/nomad/api"
)

// The service commands read and prune the native service catalog
// (`provider = "nomad"` services), as `nomad service` does.

func init() {
	register("service list", serviceListCmd)
	register("service info", serviceInfoCmd)
	register("service delete", serviceDeleteCmd)
	groupSynopses["service"] = "Interact with registered services"
}

func serviceListCmd() *cmd {
	c := &cmd{
		Name: "service list", Read: true,
		Synopsis: "List registered services",
		Help:     "Lists the names and tags of the services registered in the namespace (-namespace \"*\": every namespace).",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		list, _, err := cl.Services().List(e.query())
		if err != nil {
			return apiError("listing services", err)
		}
		return e.output(list, func() error { serviceTable(e, list); return nil })
	}
	return c
}

func serviceTable(e *env, list []*api.ServiceRegistrationListStub) {
	allNamespaces := len(list) > 1
	rows := [][]string{{"Service Name", "Tags"}}
	if allNamespaces {
		rows[0] = []string{"Service Name", "Namespace", "Tags"}
	}
	for _, ns := range list {
		for _, s := range ns.Services {
			tags := "[" + strings.Join(s.Tags, ",") + "]"
			if allNamespaces {
				rows = append(rows, []string{s.ServiceName, ns.Namespace, tags})
			} else {
				rows = append(rows, []string{s.ServiceName, tags})
			}
		}
	}
	if len(rows) == 1 {
		fmt.Fprintln(e.stdout, "No services found")
		return
	}
	writeColumns(e.stdout, rows)
}

// servedRegistration is a catalog row as the agent serves it: Nomad's
// fields plus the health the service's checks gave it.
type servedRegistration struct {
	api.ServiceRegistration
	Health string `json:",omitempty"`
}

func serviceInfoCmd() *cmd {
	c := &cmd{
		Name: "service info", Args: "<service name>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Show a service's registrations",
		Help:     "Lists every registration of the service: job, address, tags, health, node and alloc.",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		var regs []*servedRegistration
		if _, err := cl.Raw().Query("/v1/service/"+url.PathEscape(args[0]), &regs, e.query()); err != nil {
			return apiError("reading service", err)
		}
		if len(regs) == 0 {
			return errorf("no registrations of service %q found", args[0])
		}
		sort.Slice(regs, func(i, j int) bool { return regs[i].ID < regs[j].ID })
		return e.output(regs, func() error {
			if e.verbose {
				serviceVerbose(e, regs)
				return nil
			}
			rows := [][]string{{"Job ID", "Address", "Tags", "Health", "Node ID", "Alloc ID"}}
			for _, r := range regs {
				rows = append(rows, []string{r.JobID, fmt.Sprintf("%s:%d", r.Address, r.Port), "[" + strings.Join(r.Tags, ",") + "]",
					orDash(r.Health), e.short(r.NodeID), e.short(r.AllocID)})
			}
			writeColumns(e.stdout, rows)
			return nil
		})
	}
	return c
}

func serviceVerbose(e *env, regs []*servedRegistration) {
	for i, r := range regs {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		writeKV(e.stdout, [][2]string{{"ID", r.ID}, {"Service Name", r.ServiceName}, {"Namespace", r.Namespace},
			{"Job ID", r.JobID}, {"Alloc ID", r.AllocID}, {"Node ID", r.NodeID}, {"Datacenter", r.Datacenter},
			{"Address", fmt.Sprintf("%s:%d", r.Address, r.Port)}, {"Tags", "[" + strings.Join(r.Tags, ",") + "]"},
			{"Health", orDash(r.Health)}})
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func serviceDeleteCmd() *cmd {
	c := &cmd{
		Name: "service delete", Args: "<service name> <service id>", MinArgs: 2, MaxArgs: 2,
		Synopsis: "Delete a service registration",
		Help:     "Removes one registration from the catalog. A client whose alloc still runs the service registers it again.",
	}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.Services().Delete(args[0], args[1], e.write()); err != nil {
			return apiError("deleting service registration", err)
		}
		fmt.Fprintln(e.stdout, "Successfully deleted service registration")
		return nil
	}
	return c
}
