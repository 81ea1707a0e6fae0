package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/nomad/api"
)

func init() {
	register("node pool list", nodePoolListCmd)
	register("node pool info", nodePoolInfoCmd)
	register("node pool apply", nodePoolApplyCmd)
	register("node pool delete", nodePoolDeleteCmd)
	register("node pool jobs", nodePoolJobsCmd)
	register("node pool nodes", nodePoolNodesCmd)
	register("node pool init", nodePoolInitCmd)
	register("node meta read", nodeMetaReadCmd)
	register("node meta apply", nodeMetaApplyCmd)
	register("node config", nodeConfigCmd)
}

func nodePoolListCmd() *cmd {
	c := &cmd{Name: "node pool list", Synopsis: "List node pools"}
	return listTable(c, func(cl *api.Client, q *api.QueryOptions) ([]*api.NodePool, error) {
		ps, _, err := cl.NodePools().List(q)
		return ps, err
	}, "listing node pools", "No node pools found", []string{"Name", "Description"},
		func(p *api.NodePool) []string { return []string{p.Name, p.Description} })
}

func nodePoolInfoCmd() *cmd {
	c := &cmd{Name: "node pool info", Args: "<pool>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Fetch information on an existing node pool"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		p, _, err := cl.NodePools().Info(args[0], e.query())
		if err != nil {
			return apiError("reading node pool "+args[0], err)
		}
		return e.output(p, func() error {
			writeKV(e.stdout, [][2]string{{"Name", p.Name}, {"Description", orNone(p.Description)}})
			heading(e.stdout, "Metadata")
			if len(p.Meta) == 0 {
				fmt.Fprintln(e.stdout, "No metadata")
			} else {
				var kv [][2]string
				for _, k := range sortedKeys(p.Meta) {
					kv = append(kv, [2]string{k, p.Meta[k]})
				}
				writeKV(e.stdout, kv)
			}
			heading(e.stdout, "Scheduler Configuration")
			if p.SchedulerConfiguration == nil {
				fmt.Fprintln(e.stdout, "No scheduler configuration")
			} else {
				writeKV(e.stdout, [][2]string{{"Scheduler Algorithm", string(p.SchedulerConfiguration.SchedulerAlgorithm)}})
			}
			return nil
		})
	}
	return c
}

func nodePoolApplyCmd() *cmd {
	var jsonIn bool
	c := &cmd{Name: "node pool apply", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Create or update a node pool",
		Help:     "Reads a node_pool block (HCL, or JSON with -json; \"-\" reads stdin), as `node pool init` writes."}
	c.Flags = func(fs *flag.FlagSet) { fs.BoolVar(&jsonIn, "json", false, "The file is JSON.") }
	c.Run = func(e *env, args []string) error {
		data, err := readJobFile(args[0])
		if err != nil {
			return err
		}
		pool, err := parseNodePool(args[0], data, jsonIn)
		if err != nil {
			return err
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		if _, err := cl.NodePools().Register(pool, e.write()); err != nil {
			return apiError("applying node pool "+pool.Name, err)
		}
		fmt.Fprintf(e.stdout, "Successfully applied node pool %q!\n", pool.Name)
		return nil
	}
	return c
}

// parseNodePool decodes a node pool spec: a JSON object, or HCL with one
// node_pool "name" { ... } block; unknown fields are errors.
func parseNodePool(path string, data []byte, isJSON bool) (*api.NodePool, error) {
	if isJSON {
		var p api.NodePool
		if err := decodeStrictJSON(data, &p); err != nil {
			return nil, errorf("%s: %v", path, err)
		}
		return &p, nil
	}
	file, diags := hclparse.NewParser().ParseHCL(data, path)
	if diags.HasErrors() {
		return nil, errors.New(diags.Error())
	}
	var spec struct {
		Pools []*poolBlock `hcl:"node_pool,block"`
	}
	if diags := gohcl.DecodeBody(file.Body, nil, &spec); diags.HasErrors() {
		return nil, errors.New(diags.Error())
	}
	if len(spec.Pools) != 1 {
		return nil, errorf("%s: want exactly one node_pool block, found %d", path, len(spec.Pools))
	}
	b := spec.Pools[0]
	pool := &api.NodePool{Name: b.Name, Description: b.Description}
	if len(b.Meta) > 1 || len(b.Sched) > 1 {
		return nil, errorf("%s: node_pool %q: at most one meta and one scheduler_config block", path, b.Name)
	}
	if len(b.Meta) == 1 {
		attrs, diags := b.Meta[0].Body.JustAttributes()
		if diags.HasErrors() {
			return nil, errors.New(diags.Error())
		}
		pool.Meta = map[string]string{}
		for name, a := range attrs {
			var v string
			if diags := gohcl.DecodeExpression(a.Expr, nil, &v); diags.HasErrors() {
				return nil, errors.New(diags.Error())
			}
			pool.Meta[name] = v
		}
	}
	if len(b.Sched) == 1 {
		pool.SchedulerConfiguration = &api.NodePoolSchedulerConfiguration{
			SchedulerAlgorithm:            api.SchedulerAlgorithm(b.Sched[0].Algorithm),
			MemoryOversubscriptionEnabled: b.Sched[0].MemOversub,
		}
	}
	return pool, nil
}

// poolBlock is a node_pool block as a file holds it.
type poolBlock struct {
	Name        string `hcl:"name,label"`
	Description string `hcl:"description,optional"`
	Meta        []*struct {
		Body hcl.Body `hcl:",remain"`
	} `hcl:"meta,block"`
	Sched []*struct {
		Algorithm  string `hcl:"scheduler_algorithm,optional"`
		MemOversub *bool  `hcl:"memory_oversubscription_enabled,optional"`
	} `hcl:"scheduler_config,block"`
}

// decodeStrictJSON decodes one JSON object, refusing unknown fields.
func decodeStrictJSON(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(out)
}

func nodePoolDeleteCmd() *cmd {
	c := &cmd{Name: "node pool delete", Args: "<pool>", Synopsis: "Delete a node pool"}
	return deleteOne(c, func(cl *api.Client, name string, w *api.WriteOptions) error {
		_, err := cl.NodePools().Delete(name, w)
		return err
	}, "deleting node pool", "Successfully deleted node pool %q!\n")
}

func nodePoolJobsCmd() *cmd {
	c := &cmd{Name: "node pool jobs", Args: "<pool>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Fetch a list of jobs in a node pool"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		jobs, _, err := cl.NodePools().ListJobs(args[0], e.query())
		if err != nil {
			return apiError("listing jobs of node pool "+args[0], err)
		}
		return outputList(e, jobs, "No jobs", func(jobs []*api.JobListStub) {
			rows := [][]string{{"ID", "Type", "Priority", "Status", "Submit Date"}}
			if e.namespace == "*" {
				rows[0] = []string{"ID", "Namespace", "Type", "Priority", "Status", "Submit Date"}
			}
			for _, j := range jobs {
				r := []string{j.ID, j.Type, fmt.Sprint(j.Priority), jobStubStatus(j), e.whenNanos(j.SubmitTime)}
				if e.namespace == "*" {
					r = append([]string{j.ID, j.Namespace}, r[1:]...)
				}
				rows = append(rows, r)
			}
			writeColumns(e.stdout, rows)
		})
	}
	return c
}

func jobStubStatus(j *api.JobListStub) string {
	if j.Stop {
		return j.Status + " (stopped)"
	}
	return j.Status
}

func nodePoolNodesCmd() *cmd {
	c := &cmd{Name: "node pool nodes", Args: "<pool>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Fetch a list of nodes in a node pool"}
	c.Run = func(e *env, args []string) error {
		cl, err := e.api()
		if err != nil {
			return err
		}
		nodes, _, err := cl.NodePools().ListNodes(args[0], e.query())
		if err != nil {
			return apiError("listing nodes of node pool "+args[0], err)
		}
		return outputList(e, nodes, "No nodes", func(nodes []*api.NodeListStub) {
			rows := [][]string{{"ID", "Node Pool", "DC", "Name", "Class", "Drain", "Eligibility", "Status"}}
			for _, n := range nodes {
				rows = append(rows, []string{e.short(n.ID), n.NodePool, n.Datacenter, n.Name, orNone(n.NodeClass),
					fmt.Sprint(n.Drain), n.SchedulingEligibility, n.Status})
			}
			writeColumns(e.stdout, rows)
		})
	}
	return c
}

func nodePoolInitCmd() *cmd {
	var jsonOut, quiet bool
	c := &cmd{Name: "node pool init", Args: "[<file>]", MaxArgs: 1,
		Synopsis: "Create an example node pool specification file"}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "Write JSON instead of HCL.")
		fs.BoolVar(&quiet, "quiet", false, "Print the specification instead of writing a file.")
	}
	c.Run = func(e *env, args []string) error {
		file, body := "pool.nomad.hcl", examplePoolHCL
		if jsonOut {
			file, body = "pool.nomad.json", examplePoolJSON
		}
		if len(args) == 1 {
			file = args[0]
		}
		if quiet {
			fmt.Fprint(e.stdout, body)
			return nil
		}
		return writeNewFile(e, file, body, "Example node pool specification written to %s\n", "node pool specification %q already exists")
	}
	return c
}

const examplePoolHCL = `# A node pool groups clients; jobs choose one with node_pool = "name".
node_pool "example" {
  description = "Example node pool"

  # Metadata for operators; the scheduler does not read it.
  meta {
    owner = "sre"
  }
}
`

const examplePoolJSON = `{
  "Name": "example",
  "Description": "Example node pool",
  "Meta": {
    "owner": "sre"
  }
}
`

func nodeMetaReadCmd() *cmd {
	var nodeID string
	c := &cmd{Name: "node meta read", Read: true, Synopsis: "Read node metadata",
		Help: "Reads the dynamic and static metadata of the node (-node-id, else the node of the agent addressed)."}
	c.Flags = func(fs *flag.FlagSet) { fs.StringVar(&nodeID, "node-id", "", "The node (ID or prefix).") }
	c.Run = func(e *env, args []string) error {
		id, err := e.metaNode(nodeID)
		if err != nil {
			return err
		}
		cl, _ := e.api()
		m, err := cl.Nodes().Meta().Read(id, e.query())
		if err != nil {
			return apiError("reading metadata of node "+id, err)
		}
		return e.output(m, func() error {
			fmt.Fprintln(e.stdout, "All Meta")
			var kv [][2]string
			for _, k := range sortedKeys(m.Meta) {
				kv = append(kv, [2]string{k, m.Meta[k]})
			}
			writeKV(e.stdout, kv)
			if len(m.Dynamic) > 0 {
				heading(e.stdout, "Dynamic Meta")
				kv = nil
				for _, k := range sortedKeys(m.Dynamic) {
					v := "<unset>"
					if m.Dynamic[k] != nil {
						v = *m.Dynamic[k]
					}
					kv = append(kv, [2]string{k, v})
				}
				writeKV(e.stdout, kv)
			}
			return nil
		})
	}
	return c
}

func nodeMetaApplyCmd() *cmd {
	var nodeID string
	var unset string
	c := &cmd{Name: "node meta apply", Args: "[key=value...]", MaxArgs: -1,
		Synopsis: "Modify node metadata",
		Help:     "Sets dynamic metadata on the node (-node-id, else the node of the agent addressed); -unset removes keys (comma-separated)."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&nodeID, "node-id", "", "The node (ID or prefix).")
		fs.StringVar(&unset, "unset", "", "Comma-separated keys to remove.")
	}
	c.Run = func(e *env, args []string) error {
		if len(args) == 0 && unset == "" {
			return errorf("give key=value pairs or -unset")
		}
		meta := map[string]*string{}
		for _, kv := range args {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return errorf("%q is not of the form key=value", kv)
			}
			meta[k] = &v
		}
		for _, k := range strings.Split(unset, ",") {
			if k = strings.TrimSpace(k); k != "" {
				meta[k] = nil
			}
		}
		id, err := e.metaNode(nodeID)
		if err != nil {
			return err
		}
		cl, _ := e.api()
		if _, err := cl.Nodes().Meta().Apply(&api.NodeMetaApplyRequest{NodeID: id, Meta: meta}, e.query()); err != nil {
			return apiError("applying metadata to node "+id, err)
		}
		return nil
	}
	return c
}

// metaNode resolves -node-id, or the node of the agent addressed.
func (e *env) metaNode(prefix string) (string, error) {
	if prefix != "" {
		return e.resolveNode(prefix)
	}
	return e.selfNode()
}

// selfNode is the node ID of the agent addressed (its client).
func (e *env) selfNode() (string, error) {
	cl, err := e.api()
	if err != nil {
		return "", err
	}
	self, err := cl.Agent().Self()
	if err != nil {
		return "", apiError("reading the agent's own information", err)
	}
	id := self.Stats["client"]["node_id"]
	if id == "" {
		return "", errorf("the agent at %s runs no client: name the node", cl.Address())
	}
	return id, nil
}

func nodeConfigCmd() *cmd {
	var servers, update bool
	c := &cmd{Name: "node config", Args: "[<server>...]", MaxArgs: -1,
		Synopsis: "View or modify client configuration details",
		Help:     "-servers lists the servers the addressed client talks to; -update-servers replaces them with the arguments."}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&servers, "servers", false, "List the client's servers.")
		fs.BoolVar(&update, "update-servers", false, "Replace the client's servers with the arguments.")
	}
	c.Run = func(e *env, args []string) error {
		if servers == update {
			return errorf("exactly one of -servers and -update-servers is required")
		}
		cl, err := e.api()
		if err != nil {
			return err
		}
		if servers {
			if len(args) > 0 {
				return errorf("-servers takes no arguments")
			}
			list, err := cl.Agent().Servers()
			if err != nil {
				return apiError("reading the client's servers", err)
			}
			sort.Strings(list)
			for _, s := range list {
				fmt.Fprintln(e.stdout, s)
			}
			return nil
		}
		if len(args) == 0 {
			return errorf("-update-servers needs at least one server address")
		}
		if err := cl.Agent().SetServers(args); err != nil {
			return apiError("updating the client's servers", err)
		}
		fmt.Fprintln(e.stdout, "Updated server list")
		return nil
	}
	return c
}
