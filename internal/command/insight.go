package command

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The insight commands (go doc ./internal/server/insight): job why, job
// headroom, operator headroom, operator what-if, node drain -plan and the
// "Why Not Placed" section of eval status. They read Drover's own
// endpoints (/v1/job/:id/explain, /headroom, /v1/evaluation/:id/explain,
// /v1/operator/whatif, /v1/operator/headroom) through the client's raw
// calls; the replies are decoded into the views below.

func init() {
	register("job why", jobWhyCmd)
	register("job headroom", jobHeadroomCmd)
	register("operator headroom", operatorHeadroomCmd)
	register("operator what-if", operatorWhatIfCmd)
}

// resources is the JSON of an ask or a free amount.
type resources struct {
	CpuShares int64
	Cores     int
	MemoryMB  int64
	DiskMB    int64
}

func (r resources) String() string {
	var parts []string
	if r.CpuShares > 0 {
		parts = append(parts, thousands(r.CpuShares)+" MHz cpu")
	}
	if r.Cores > 0 {
		parts = append(parts, fmt.Sprintf("%d cores", r.Cores))
	}
	if r.MemoryMB > 0 {
		parts = append(parts, thousands(r.MemoryMB)+" MB memory")
	}
	if r.DiskMB > 0 {
		parts = append(parts, thousands(r.DiskMB)+" MB disk")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func thousands(v int64) string {
	s := strconv.FormatInt(v, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

type explainView struct {
	JobID, Namespace, EvalID string
	Groups                   []*groupExplainView
}

type groupExplainView struct {
	Group    string
	Unplaced int
	Ask      resources
	Nodes    int
	Fit      int
	Reasons  []struct {
		Step, Reason string
		Count        int
		Classes      map[string]int
		Example      string
		Nodes        []string
	}
	Fixes        []string
	NodeVerdicts []struct {
		NodeID, Name, Class, Datacenter string
		Fits                            bool
		Failures                        []string
		Free                            resources
	}
}

func jobWhyCmd() *cmd {
	var group, node string
	var nodes bool
	c := &cmd{
		Name: "job why", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Explain why a job is not placed, and what would place it",
		Help: "Runs the job's scheduler on the current state (nothing is written) and\n" +
			"the scheduler's checks of one more alloc on every node: for each group\n" +
			"with unplaced allocs (or -group), the first reason each node is unusable\n" +
			"with its numbers, grouped, and the changes that would place it, the\n" +
			"cheapest (the one opening the most nodes) first. -node shows one node's\n" +
			"every failure, -nodes every node's.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&group, "group", "", "Explain this task group only.")
		fs.StringVar(&node, "node", "", "Show this node's verdict (ID, prefix or name).")
		fs.BoolVar(&nodes, "nodes", false, "Show every node's verdict.")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		v := url.Values{}
		if group != "" {
			v.Set("group", group)
		}
		if node != "" {
			v.Set("node", node)
		}
		if nodes {
			v.Set("nodes", "true")
		}
		var out explainView
		if err := e.rawQuery("/v1/job/"+url.PathEscape(id)+"/explain", v, &out); err != nil {
			return apiError("explaining job "+id, err)
		}
		return e.output(&out, func() error { e.printExplain(e.stdout, &out); return nil })
	}
	return c
}

// rawQuery GETs a Drover endpoint with the env's query options.
func (e *env) rawQuery(path string, params url.Values, out any) error {
	cl, err := e.api()
	if err != nil {
		return err
	}
	q := e.query()
	if len(params) > 0 {
		q.Params = map[string]string{}
		for k := range params {
			q.Params[k] = params.Get(k)
		}
	}
	_, err = cl.Raw().Query(path, out, q)
	return err
}

func (e *env) printExplain(w io.Writer, x *explainView) {
	for i, g := range x.Groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		state := fmt.Sprintf("%d unplaced", g.Unplaced)
		if g.Unplaced == 0 {
			state = "fully placed; explaining one more"
		}
		fmt.Fprintf(w, "Group %q of job %q: %s; %d of %d nodes take one more (asks %s)\n", g.Group, x.JobID, state, g.Fit, g.Nodes, g.Ask)
		if len(g.Reasons) > 0 {
			heading(w, "Why Not Placed (first reason per node)")
			rows := [][]string{{"Nodes", "Reason", "Classes", "Example"}}
			for _, r := range g.Reasons {
				rows = append(rows, []string{strconv.Itoa(r.Count), r.Reason, classes(r.Classes), r.Example})
				if e.verbose || len(x.Groups) == 1 {
					more := ""
					if r.Count > len(r.Nodes) {
						more = fmt.Sprintf(" (+%d more)", r.Count-len(r.Nodes))
					}
					rows = append(rows, []string{"", "  nodes: " + strings.Join(r.Nodes, ", ") + more, "", ""})
				}
			}
			writeColumns(w, rows)
		}
		if len(g.Fixes) > 0 {
			heading(w, "What Would Place It (cheapest first)")
			for _, f := range g.Fixes {
				fmt.Fprintf(w, "- %s\n", f)
			}
		}
		if len(g.NodeVerdicts) > 0 {
			heading(w, "Nodes")
			rows := [][]string{{"Node", "Class", "DC", "Fits", "Free", "Failures"}}
			for _, v := range g.NodeVerdicts {
				rows = append(rows, []string{v.Name, orNone(v.Class), v.Datacenter, strconv.FormatBool(v.Fits), v.Free.String(), strings.Join(v.Failures, "; ")})
			}
			writeColumns(w, rows)
		}
	}
}

// classes formats node counts by the class the operator set.
func classes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || (m[keys[i]] == m[keys[j]] && keys[i] < keys[j]) })
	var parts []string
	for _, k := range keys {
		name := k
		if name == "" {
			name = "<none>"
		}
		parts = append(parts, fmt.Sprintf("%s x%d", name, m[k]))
	}
	return strings.Join(parts, ", ")
}

type nodeLossView struct {
	NodeID, Name string
	More         int
	Others       int
	UpperBound   bool
}

type headroomView struct {
	JobID, Group string
	Ask          resources
	Current      int
	More         int
	Blocker      string
	PerNode      map[string]int
	N1           []nodeLossView
	N1Min        int
	N1Worst      string
	N1MinBound   bool
	N1MinAtLeast int
}

func jobHeadroomCmd() *cmd {
	var group string
	c := &cmd{
		Name: "job headroom", Args: "<job>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Show how many more allocs of a group fit, and after losing a node",
		Help: "How many more allocs of the group the job's scheduler places on the\n" +
			"current state before it blocks (nothing is written). N+1: the same\n" +
			"after losing each node, its allocs of the group placed again first,\n" +
			"worst first.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&group, "group", "", "The task group (needed when the job has several).")
	}
	c.Run = func(e *env, args []string) error {
		id, err := e.resolveJob(args[0])
		if err != nil {
			return err
		}
		v := url.Values{}
		if group != "" {
			v.Set("group", group)
		}
		var out headroomView
		if err := e.rawQuery("/v1/job/"+url.PathEscape(id)+"/headroom", v, &out); err != nil {
			return apiError("computing the headroom of job "+id, err)
		}
		return e.output(&out, func() error { printHeadroom(e.stdout, &out); return nil })
	}
	return c
}

// maxN1Rows is how many single-node losses, worst first, the table shows.
const maxN1Rows = 10

func printHeadroom(w io.Writer, h *headroomView) {
	if h.JobID != "" {
		if h.More < 0 {
			fmt.Fprintf(w, "Group %q of job %q (count %d, asks %s): the count does not fit, %d short\n", h.Group, h.JobID, h.Current, h.Ask, -h.More)
		} else {
			fmt.Fprintf(w, "Group %q of job %q (count %d, asks %s): %d more fit\n", h.Group, h.JobID, h.Current, h.Ask, h.More)
		}
	} else {
		fmt.Fprintf(w, "Allocs of %s: %d fit\n", h.Ask, h.More)
	}
	if h.Blocker != "" {
		fmt.Fprintf(w, "The next one: %s\n", h.Blocker)
	}
	if len(h.PerNode) > 0 {
		heading(w, "Placed Per Node")
		names := make([]string, 0, len(h.PerNode))
		for n := range h.PerNode {
			names = append(names, n)
		}
		sort.Strings(names)
		rows := [][]string{{"Node", "More"}}
		for _, n := range names {
			rows = append(rows, []string{n, strconv.Itoa(h.PerNode[n])})
		}
		writeColumns(w, rows)
	}
	if len(h.N1) > 0 {
		heading(w, "N+1 (one node lost)")
		bounds := slices.ContainsFunc(h.N1, func(l nodeLossView) bool { return l.UpperBound })
		rows := [][]string{{"Node Lost", "More"}}
		if bounds {
			rows[0] = append(rows[0], "Note")
		}
		for i, l := range h.N1 {
			if i == maxN1Rows {
				break
			}
			row := []string{l.Name, strconv.Itoa(l.More)}
			if l.UpperBound {
				row = append(row, fmt.Sprintf("at most: %d allocs of other jobs would move too", l.Others))
			} else if bounds {
				row = append(row, "")
			}
			rows = append(rows, row)
		}
		writeColumns(w, rows)
		if len(h.N1) > maxN1Rows {
			fmt.Fprintf(w, "(the %d least hurting losses are not shown; -json lists every node)\n", len(h.N1)-maxN1Rows)
		}
		fmt.Fprintf(w, "\nWorst single-node loss: %s (%d more fit)\n", h.N1Worst, h.N1Min)
		if h.N1MinBound {
			fmt.Fprintf(w, "(losses not played could leave as few as %d)\n", h.N1MinAtLeast)
		}
	}
}

func operatorHeadroomCmd() *cmd {
	var cpu, mem, disk int
	var dcs, pool string
	c := &cmd{
		Name: "operator headroom", Read: true,
		Synopsis: "Show how many allocs of a given shape fit in the cluster",
		Help: "Places allocs of one task with the given resources with the service\n" +
			"scheduler on the current state, one after the other, until one blocks.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.IntVar(&cpu, "cpu", 0, "CPU of the shape, in MHz.")
		fs.IntVar(&mem, "memory", 0, "Memory of the shape, in MB.")
		fs.IntVar(&disk, "disk", 0, "Ephemeral disk of the shape, in MB.")
		fs.StringVar(&dcs, "datacenters", "", "Comma-separated datacenters (default: all).")
		fs.StringVar(&pool, "node-pool", "", "Node pool (default: all).")
	}
	c.Run = func(e *env, args []string) error {
		v := url.Values{}
		for k, n := range map[string]int{"cpu": cpu, "memory": mem, "disk": disk} {
			if n != 0 {
				v.Set(k, strconv.Itoa(n))
			}
		}
		if dcs != "" {
			v.Set("datacenters", dcs)
		}
		if pool != "" {
			v.Set("pool", pool)
		}
		var out headroomView
		if err := e.rawQuery("/v1/operator/headroom", v, &out); err != nil {
			return apiError("computing the headroom", err)
		}
		return e.output(&out, func() error { printHeadroom(e.stdout, &out); return nil })
	}
	return c
}

type whatIfView struct {
	Kind     string
	Nodes    []string
	Moves    []whatIfMove
	Unplaced []struct {
		Namespace, JobID, Group string
		Count                   int
		Reason                  string
	}
	Stopped            []whatIfMove
	BlockedDeployments []string
	Evals              int
}

type whatIfMove struct {
	AllocID, Name, Namespace, JobID, Group, From, To string
}

func operatorWhatIfCmd() *cmd {
	var deadline time.Duration
	var noDeadline, force, ignoreSystem bool
	c := &cmd{
		Name: "operator what-if", Args: "drain <node>... | down <node>... | down-dc <datacenter>", MinArgs: 2, MaxArgs: -1, Read: true,
		Synopsis: "Show what a drain or the loss of nodes would move, and what would not fit",
		Help: "Plays the change on a copy of the current state with the real drainer\n" +
			"and schedulers until nothing is left to do (the cluster is not touched):\n" +
			"the allocs that move (from, to), those left unplaced with the reason, the\n" +
			"deployments that would block, and how many evaluations it took.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.DurationVar(&deadline, "deadline", time.Hour, "drain: stop remaining allocations after this long.")
		fs.BoolVar(&noDeadline, "no-deadline", false, "drain: never force remaining allocations to stop.")
		fs.BoolVar(&force, "force", false, "drain: stop every allocation now.")
		fs.BoolVar(&ignoreSystem, "ignore-system", false, "drain: leave system job allocations running.")
	}
	c.Run = func(e *env, args []string) error {
		body := map[string]any{"Kind": args[0]}
		switch args[0] {
		case "drain", "down":
			var ids []string
			for _, a := range args[1:] {
				id, err := e.resolveNode(a)
				if err != nil {
					id = a // a node name: the server matches names too
				}
				ids = append(ids, id)
			}
			body["Nodes"] = ids
		case "down-dc":
			if len(args) != 2 {
				return errorf("down-dc takes one datacenter")
			}
			body["Datacenter"] = args[1]
		default:
			return errorf("unknown what-if %q: drain, down or down-dc", args[0])
		}
		if args[0] == "drain" {
			body["Deadline"] = drainDeadline(deadline, force, noDeadline)
			body["IgnoreSystemJobs"] = ignoreSystem
		}
		out, err := e.whatIf(body)
		if err != nil {
			return err
		}
		return e.output(out, func() error { e.printWhatIf(e.stdout, out); return nil })
	}
	return c
}

func (e *env) whatIf(body map[string]any) (*whatIfView, error) {
	cl, err := e.api()
	if err != nil {
		return nil, err
	}
	var out whatIfView
	if _, err := cl.Raw().Write("/v1/operator/whatif", body, &out, e.write()); err != nil {
		return nil, apiError("computing the what-if", err)
	}
	return &out, nil
}

func (e *env) printWhatIf(w io.Writer, x *whatIfView) {
	fmt.Fprintf(w, "What-if %s of %s: %d moves, %d unplaced groups, %d evaluations\n", x.Kind, strings.Join(x.Nodes, ", "), len(x.Moves), len(x.Unplaced), x.Evals)
	if len(x.Moves) > 0 {
		heading(w, "Moves")
		rows := [][]string{{"Alloc", "Name", "From", "To"}}
		for _, m := range x.Moves {
			rows = append(rows, []string{e.short(m.AllocID), m.Name, m.From, m.To})
		}
		writeColumns(w, rows)
	}
	if len(x.Stopped) > 0 {
		heading(w, "Stopped Without Replacement")
		rows := [][]string{{"Alloc", "Name", "From"}}
		for _, m := range x.Stopped {
			rows = append(rows, []string{e.short(m.AllocID), m.Name, m.From})
		}
		writeColumns(w, rows)
	}
	if len(x.Unplaced) > 0 {
		heading(w, "Unplaced")
		rows := [][]string{{"Job", "Group", "Count", "Why"}}
		for _, u := range x.Unplaced {
			rows = append(rows, []string{u.JobID, u.Group, strconv.Itoa(u.Count), u.Reason})
		}
		writeColumns(w, rows)
	}
	if len(x.BlockedDeployments) > 0 {
		heading(w, "Deployments That Would Block")
		for _, d := range x.BlockedDeployments {
			fmt.Fprintf(w, "- %s\n", d)
		}
	}
}

// drainPlan is node drain -plan: the what-if of the drain the flags ask.
func (e *env) drainPlan(nodeID string, deadline time.Duration, ignoreSystem bool) error {
	out, err := e.whatIf(map[string]any{"Kind": "drain", "Nodes": []string{nodeID}, "Deadline": deadline, "IgnoreSystemJobs": ignoreSystem})
	if err != nil {
		return err
	}
	e.printWhatIf(e.stdout, out)
	return nil
}

// evalExplain prints the "Why Not Placed" section of eval status for an
// eval with failed placements; an answer the agent cannot give is left
// out, as the rest of the status still stands.
func (e *env) evalExplain(w io.Writer, evalID string) {
	var out explainView
	if err := e.rawQuery("/v1/evaluation/"+url.PathEscape(evalID)+"/explain", nil, &out); err != nil {
		fmt.Fprintf(w, "\n(no explanation: %v)\n", err)
		return
	}
	heading(w, "Why Not Placed")
	var b strings.Builder
	e.printExplain(&b, &out)
	fmt.Fprint(w, indent(b.String(), "  "))
}
