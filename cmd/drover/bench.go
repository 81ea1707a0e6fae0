package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drover-project/drover/internal/bench"
	"github.com/drover-project/drover/internal/server"
	"github.com/drover-project/drover/internal/telemetry"
)

// runBench runs the end-to-end benchmarks of internal/bench on in-process
// dev servers and prints one table row per scenario and cluster size.
func runBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodesFlag := fs.String("nodes", "1000,5000,10000", "comma-separated cluster sizes")
	scenFlag := fs.String("scenario", strings.Join(bench.Scenarios, ","),
		"comma-separated scenarios: a) 1000 jobs x 10, 8 submitters; b) 10 jobs x 1000; "+
			"c) 1 job x 50000; d) state store heap per node, alloc and eval; e) 100000-eval backlog over 1000 jobs; "+
			"f) 100 jobs x 10000 (run with -nodes 10000): heap, RSS, snapshot; g) heartbeats of every node for 30s: leader CPU; "+
			"r) 200 jobs x 250, then 20 HTTP clients of mixed reads (jobs, job, allocations, nodes, a passed blocking query) for 20s (run with -nodes 5000)")
	quick := fs.Bool("quick", false, "a tenth of the work per scenario")
	servers := fs.Int("servers", 1, "servers: 1 runs one in-memory dev server; 3 or 5 a real cluster (on-disk raft with fsync, loopback TCP)")
	serialPlans := fs.Bool("serial-plans", false, "turn the plan applier's pipeline off (evaluate, commit and answer one plan at a time)")
	schedulers := fs.Int("schedulers", 0, "scheduling workers per server (default 2, as on a 2-core server)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (every server is in this process, each one's goroutines labelled server=NAME) to this file")
	placingProfile := fs.String("cpuprofile-placing", "", "write a CPU profile of only the placing window of scenarios a-c and f (from the first job submitted to the last eval complete; node registration left out) to this file (the last run's, with -count)")
	memProfile := fs.String("memprofile", "", "write a heap profile to this file once a run's state is in place (scenario f: after placing, before the snapshot; the last run's, with -count)")
	raftTimings := fs.Bool("raft-timings", false, "after the table, print raft's timing summaries over the run (commit, log writes, replication round trips, FSM apply) for every server in this process")
	count := fs.Int("count", 1, "run each scenario this many times; with more than one, a row after the runs gives the median rate (runs on a shared machine vary by a quarter or more)")
	readGzip := fs.Bool("read-gzip", false, "scenario r: the clients ask for gzip, as the official client does (the bytes off the wire are counted, not unzipped)")
	readPage := fs.Int("read-page", 0, "scenario r: the alloc and node listings ask per_page=N, each client walking the pages with next_token")
	traceFile := fs.String("trace", "", "write an execution trace of the whole run to this file (go tool trace -pprof=sync|net|syscall|sched shows where goroutines wait)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: drover bench [-nodes 1000,5000,10000] [-scenario a,b,c,d,e,f,g,r] [-quick] [-servers 3] [-serial-plans] [-schedulers 2] [-count N] [-cpuprofile FILE] [-cpuprofile-placing FILE] [-memprofile FILE] [-trace FILE] [-raft-timings] [-read-gzip] [-read-page N]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *count < 1 {
		fmt.Fprintf(stderr, "drover bench: -count: %d is not a positive number of runs\n", *count)
		return 2
	}
	if *cpuProfile != "" && *placingProfile != "" {
		fmt.Fprintln(stderr, "drover bench: -cpuprofile and -cpuprofile-placing: one CPU profile at a time")
		return 2
	}
	specs, err := benchSpecs(*nodesFlag, *scenFlag, *quick)
	if err != nil {
		fmt.Fprintln(stderr, "drover bench:", err)
		return 2
	}
	if *readPage < 0 {
		fmt.Fprintf(stderr, "drover bench: -read-page: %d is not a page size\n", *readPage)
		return 2
	}
	for _, s := range specs {
		if (*readGzip || *readPage > 0) && s.Scenario != bench.Reads {
			fmt.Fprintf(stderr, "drover bench: -read-gzip and -read-page shape scenario r's load only, not scenario %s\n", s.Scenario)
			return 2
		}
		if *placingProfile != "" && !bench.Places(s.Scenario) {
			fmt.Fprintf(stderr, "drover bench: -cpuprofile-placing profiles the placing of scenarios a-c and f; scenario %s places nothing to profile\n", s.Scenario)
			return 2
		}
	}
	for _, r := range []struct {
		path  string
		start func(io.Writer) error
		end   func()
	}{{*cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile}, {*traceFile, trace.Start, trace.Stop}} {
		if r.path == "" {
			continue
		}
		stop, err := record(r.path, r.start, r.end)
		if err != nil {
			fmt.Fprintln(stderr, "drover bench:", err)
			return 1
		}
		defer stop()
	}
	// The servers run in this process, as a server agent's would run.
	percent, fromEnv := server.TuneGC(os.LookupEnv)
	fmt.Fprintf(stderr, "drover bench: GOGC=%d (%s)\n", percent, map[bool]string{false: "the server default", true: "from the environment"}[fromEnv])
	printBenchHeader(stdout)
	for _, spec := range specs {
		spec.Servers, spec.SerialPlans, spec.Schedulers = *servers, *serialPlans, *schedulers
		spec.ReadGzip, spec.ReadPage = *readGzip, *readPage
		if *placingProfile != "" {
			spec.Measuring = func() func() { return profileWindow(*placingProfile, stderr) }
		}
		if *memProfile != "" {
			spec.HeapProfile = func() error { return writeHeapProfile(*memProfile) }
		}
		var rates []float64
		for range *count {
			res, err := bench.Run(spec)
			if err != nil {
				fmt.Fprintln(stderr, "drover bench:", err)
				return 1
			}
			printBenchRow(stdout, res)
			rates = append(rates, res.PerSecond)
			if (*cpuProfile != "" || *placingProfile != "") && len(res.ServerNames) > 1 {
				fmt.Fprintf(stderr, "drover bench: scenario %s: the profile labels each server's goroutines: server=%s led, server=%s followed ('go tool pprof -tags' splits the CPU by server)\n",
					res.Scenario, res.ServerNames[0], strings.Join(res.ServerNames[1:], ","))
			}
		}
		if len(rates) > 1 && slices.Max(rates) > 0 {
			printMedianRow(stdout, spec, rates)
		}
	}
	if *raftTimings {
		printRaftTimings(stdout)
	}
	return 0
}

// benchSpecs is every scenario crossed with every cluster size, scenario
// by scenario.
func benchSpecs(nodesList, scenarios string, quick bool) ([]bench.Spec, error) {
	var sizes []int
	for _, f := range strings.Split(nodesList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-nodes: %q is not a positive number", f)
		}
		sizes = append(sizes, n)
	}
	var specs []bench.Spec
	for _, sc := range strings.Split(scenarios, ",") {
		for _, n := range sizes {
			spec, err := bench.DefaultSpec(strings.TrimSpace(sc), n, quick)
			if err != nil {
				return nil, err
			}
			specs = append(specs, spec)
		}
	}
	return specs, nil
}

const benchRowFormat = "%-3s %6s  %-22s %8s %9s %12s %9s %9s  %s\n"

func printBenchHeader(w io.Writer) {
	fmt.Fprintf(w, benchRowFormat, "SC", "NODES", "WORK", "SETUP", "ELAPSED", "RATE/S", "EVAL P50", "EVAL P99", "NOTES")
}

// printBenchRow prints a row as soon as its run ends, so a long table
// shows progress.
func printBenchRow(w io.Writer, r *bench.Result) {
	work := fmt.Sprintf("%d jobs x %d", r.Jobs, r.Count)
	rate, notes := fmt.Sprintf("%.0f", r.PerSecond), ""
	switch r.Scenario {
	case bench.ManyJobs, bench.BigJobs, bench.OneHugeJob:
		notes = fmt.Sprintf("%d placements, %d submitters, CPU %.2f cores (GC %.0f%%); %s", r.Placements, r.Submitters, r.CPUCores, 100*r.GCShare, phases(r.Phases))
	case bench.StateMemory:
		rate = "-"
		notes = fmt.Sprintf("%.0f B/node, %.0f B/alloc (%d allocs), %.0f B/eval", r.PerNode, r.PerAlloc, r.Placements, r.PerEval)
	case bench.EvalBacklog:
		work = fmt.Sprintf("%d evals / %d jobs", r.Evals, r.Jobs)
		notes = fmt.Sprintf("evals/s; %d processed, %d canceled", r.Processed, r.Canceled)
	case bench.MillionAllocs:
		notes = fmt.Sprintf("%d placements; heap %s, RSS %s; snapshot %s, save %s, restore %s (from a %s heap, server shut down); %s",
			r.Placements, mib(r.HeapBytes), mib(r.RSSBytes), mib(r.SnapshotBytes), dur(r.SnapshotSave), dur(r.SnapshotRestore), mib(r.RestoreBaseHeapBytes), phases(r.Phases))
	case bench.Heartbeats:
		work = fmt.Sprintf("%d nodes x %s", r.Nodes, r.Window)
		notes = fmt.Sprintf("heartbeats/s; %d answered, leader CPU %.1f%% of one core", r.Heartbeats, 100*r.CPUCores)
	case bench.Reads:
		work = fmt.Sprintf("%d jobs x %d, %s", r.Jobs, r.Count, r.Window)
		perRead := time.Duration(0)
		if n := r.PerSecond * r.Elapsed.Seconds(); n > 0 {
			perRead = time.Duration(r.CPUCores * float64(r.Elapsed) / n)
		}
		notes = fmt.Sprintf("reads/s (p50/p99 in the eval columns); CPU %.2f cores, %s per read (server and load driver);", r.CPUCores, dur(perRead))
		if r.ReadGzip {
			notes += " gzip'd (sizes on the wire);"
		}
		if r.ReadPage > 0 {
			notes += fmt.Sprintf(" alloc and node listings paged by %d;", r.ReadPage)
		}
		for _, s := range r.Reads {
			notes += fmt.Sprintf(" %s %d p50 %s p99 %s %s/reply;", s.Endpoint, s.Count, dur(s.P50), dur(s.P99), kib(s.Bytes/int64(max(1, s.Count))))
		}
	}
	fmt.Fprintf(w, benchRowFormat, r.Scenario, strconv.Itoa(r.Nodes), work, dur(r.Setup), dur(r.Elapsed),
		rate, dur(r.EvalP50), dur(r.EvalP99), notes)
}

// printMedianRow follows a scenario's runs with their median rate and
// every rate, lowest first.
func printMedianRow(w io.Writer, spec bench.Spec, rates []float64) {
	sorted := slices.Sorted(slices.Values(rates))
	all := make([]string, len(sorted))
	for i, r := range sorted {
		all[i] = fmt.Sprintf("%.0f", r)
	}
	fmt.Fprintf(w, benchRowFormat, spec.Scenario, strconv.Itoa(spec.Nodes), fmt.Sprintf("median of %d", len(rates)), "", "",
		fmt.Sprintf("%.0f", median(sorted)), "", "", "rates "+strings.Join(all, ", "))
}

// median of sorted values (the mean of the middle two for an even count).
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// record starts a CPU profile or an execution trace of the whole process
// into path (the servers and simulated nodes all run in this process):
// the profile shows where a scenario's time goes on every server, the
// trace where goroutines wait (on locks, channels, the network, fsync and
// the Go scheduler). stop ends it and closes the file.
func record(path string, start func(io.Writer) error, end func()) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { end(); f.Close() }, nil
}

// profileWindow starts a CPU profile into path and returns what ends it;
// a profile that cannot start is reported and the run goes on unprofiled.
func profileWindow(path string, stderr io.Writer) func() {
	stop, err := record(path, pprof.StartCPUProfile, pprof.StopCPUProfile)
	if err != nil {
		fmt.Fprintln(stderr, "drover bench: -cpuprofile-placing:", err)
		return func() {}
	}
	return stop
}

// writeHeapProfile writes the heap profile (in use and allocated since
// the start) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// phases tells where eval latency went: queue wait, scheduling, applying.
func phases(p bench.EvalPhases) string {
	return fmt.Sprintf("eval p50/p99: queued %s/%s, scheduling %s/%s, applying %s/%s",
		dur(p.WaitP50), dur(p.WaitP99), dur(p.SchedulingP50), dur(p.SchedulingP99), dur(p.ApplyingP50), dur(p.ApplyingP99))
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func kib(b int64) string { return fmt.Sprintf("%.1f KiB", float64(b)/1024) }

// dur prints a duration with three significant digits, "-" for none.
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

// benchRaftTimings are the raft summaries that split a commit's latency:
// the leader's log write, the round trip to a follower (which includes
// the follower's log write), the commit, and the FSM apply (applyBatch:
// the FSM is a raft.BatchingFSM, so raft times each batch it hands over;
// fsm_apply is left for entries raft applies one at a time).
var benchRaftTimings = []string{
	"nomad_raft_leader_dispatchLog",
	"nomad_raft_rpc_appendEntries_storeLogs",
	"nomad_raft_replication_appendEntries_rpc",
	"nomad_raft_commitTime",
	"nomad_raft_fsm_apply",
	"nomad_raft_fsm_applyBatch",
}

// quantileCell prints a quantile, "-" for one whose window was empty.
func quantileCell(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(time.Microsecond).String()
}

func printRaftTimings(w io.Writer) {
	fmt.Fprintf(w, "\n%-42s %8s %10s %10s %10s %10s\n", "RAFT (all servers)", "COUNT", "MEAN", "P50", "P90", "P99")
	for _, s := range telemetry.RaftSummaries(benchRaftTimings...) {
		fmt.Fprintf(w, "%-42s %8d %10s %10s %10s %10s\n", s.Name, s.Count, s.Mean.Round(time.Microsecond),
			quantileCell(s.P50), quantileCell(s.P90), quantileCell(s.P99))
	}
	fmt.Fprintln(w, "(quantiles are over the last 10 s of the run; \"-\": no samples then)")
}
