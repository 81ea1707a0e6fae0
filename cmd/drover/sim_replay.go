package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/drover-project/drover/internal/sim"
	"github.com/drover-project/drover/internal/structs"
)

// runSimReplay is `drover sim replay`: an eval of an operator snapshot
// run again through the scheduler, its plan printed.
func runSimReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sim replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	snapshot := fs.String("snapshot", "", "operator snapshot file (drover operator snapshot save)")
	evalID := fs.String("eval", "", "ID of the evaluation to replay")
	seed := fs.Int64("seed", 0, "seed of the IDs the scheduler makes (a simulated run's seed gives its IDs back)")
	cfgFile := fs.String("scheduler-config", "", "JSON scheduler configuration to use instead of the snapshot's")
	asJSON := fs.Bool("json", false, "print the whole result (plans, final eval, follow-ups) as JSON")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: drover sim replay -snapshot FILE -eval ID [-seed N] [-scheduler-config FILE] [-json]\n\n"+
			"  Restores the snapshot, rolls it back to the evaluation's snapshot index\n"+
			"  (allocs created since hidden, allocs stopped since shown as they were,\n"+
			"  the job at the version the eval saw) and runs the evaluation through\n"+
			"  the scheduler, writing nothing; prints its plan. The same snapshot,\n"+
			"  eval and seed print the same bytes.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *snapshot == "" || *evalID == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	opts := sim.ReplayOptions{Seed: *seed}
	if *cfgFile != "" {
		cfg, err := readSchedulerConfig(*cfgFile)
		if err != nil {
			fmt.Fprintf(stderr, "drover sim replay: %v\n", err)
			return 1
		}
		opts.SchedulerConfig = cfg
	}
	f, err := os.Open(*snapshot)
	if err != nil {
		fmt.Fprintf(stderr, "drover sim replay: %v\n", err)
		return 1
	}
	defer f.Close()
	res, err := sim.Replay(f, *evalID, opts)
	if err != nil {
		fmt.Fprintf(stderr, "drover sim replay: %v\n", err)
		return 1
	}
	if *asJSON {
		b, err := res.JSON()
		if err != nil {
			fmt.Fprintf(stderr, "drover sim replay: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	printReplay(stdout, res)
	return 0
}

// readSchedulerConfig reads a scheduler configuration as JSON (Nomad's
// field names); an unknown field is refused with its name.
func readSchedulerConfig(path string) (*structs.SchedulerConfiguration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	cfg := structs.DefaultSchedulerConfiguration()
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return cfg, nil
}

func printReplay(w io.Writer, r *sim.ReplayResult) {
	e := r.Eval
	fmt.Fprintf(w, "Eval %s (job %q, %s, triggered by %s)\n", e.ID, e.JobID, e.Type, e.TriggeredBy)
	for i, p := range r.Plans {
		fmt.Fprintf(w, "\nPlan %d (snapshot index %d)\n", i+1, p.SnapshotIndex)
		rows := []string{}
		add := func(kind string, m map[string][]*structs.Allocation) {
			for _, allocs := range m {
				for _, a := range allocs {
					rows = append(rows, fmt.Sprintf("  %-8s %s  %-24s node %s", kind, a.ID, a.Name, a.NodeID))
				}
			}
		}
		add("place", p.NodeAllocation)
		add("stop", p.NodeUpdate)
		add("preempt", p.NodePreemptions)
		sort.Strings(rows)
		fmt.Fprintln(w, strings.Join(rows, "\n"))
	}
	if f := r.Final; f != nil {
		fmt.Fprintf(w, "\nFinal status: %s\n", strings.TrimSpace(f.Status+" "+f.StatusDescription))
		groups := make([]string, 0, len(f.FailedTGAllocs))
		for g := range f.FailedTGAllocs {
			groups = append(groups, g)
		}
		sort.Strings(groups)
		for _, g := range groups {
			m := f.FailedTGAllocs[g]
			fmt.Fprintf(w, "  group %s: %d unplaced (filtered %v, exhausted %v)\n", g, m.CoalescedFailures+1, m.ConstraintFiltered, m.DimensionExhausted)
		}
	}
	for _, c := range r.Created {
		fmt.Fprintf(w, "Follow-up eval %s (%s, %s)\n", c.ID, c.TriggeredBy, c.Status)
	}
}
