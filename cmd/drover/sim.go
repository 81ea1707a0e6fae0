package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/drover-project/drover/internal/sim"
)

// runSim plays scenario files on the deterministic simulator and prints
// each one's eval chains and counts; it fails when an expectation fails.
func runSim(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "replay" {
		return runSimReplay(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Int64("seed", 0, "override the scenario's seed")
	history := fs.Bool("history", false, "also print every eval and alloc record")
	rewrite := fs.Bool("rewrite", false, "write each scenario's golden transcript (FILE.golden) instead of comparing with it")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: drover sim [-seed N] [-history] [-rewrite] FILE...\n"+
			"       drover sim replay -snapshot FILE -eval ID (drover sim replay -h)\n\n"+
			"  Runs scenario files (HCL) on the cluster simulator and prints the eval\n"+
			"  chains and counts. Exits 1 if any expectation fails, or if the outcome\n"+
			"  differs from the scenario's golden transcript (NAME.golden next to it;\n"+
			"  -rewrite regenerates it).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	code := 0
	for _, path := range fs.Args() {
		if !playFile(path, *seed, *history, *rewrite, stdout, stderr) {
			code = 1
		}
	}
	return code
}

// playFile runs one scenario file (each of its variants); it reports
// whether every one passed and the file's golden transcript matched.
func playFile(path string, seed int64, history, rewrite bool, stdout, stderr io.Writer) bool {
	scs, err := sim.LoadScenarios(path)
	if err != nil {
		fmt.Fprintf(stderr, "drover sim: %v\n", err)
		return false
	}
	passed := true
	var results []*sim.Result
	for _, sc := range scs {
		if seed != 0 {
			sc.Seed = seed
		}
		res, err := sim.Run(sc, sim.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "drover sim: %s: %v\n", sc.Name, err)
			return false
		}
		res.Report(stdout)
		if history {
			fmt.Fprintf(stdout, "\n%s\n", res.History)
		}
		fmt.Fprintln(stdout)
		passed = passed && res.Passed()
		results = append(results, res)
	}
	if seed != 0 {
		return passed // another seed: the golden transcript does not apply
	}
	return golden(path, rewrite, results, stderr) && passed
}

// golden writes (rewrite) or checks the file's golden transcript.
func golden(path string, rewrite bool, results []*sim.Result, stderr io.Writer) bool {
	if rewrite {
		if err := sim.WriteGolden(path, results...); err != nil {
			fmt.Fprintf(stderr, "drover sim: %v\n", err)
			return false
		}
		return true
	}
	d, err := sim.CheckGolden(path, results...)
	if err != nil {
		fmt.Fprintf(stderr, "drover sim: %v\n", err)
		return false
	}
	if d != "" {
		fmt.Fprintf(stderr, "drover sim: %s: differs from %s (-rewrite regenerates it):\n%s\n", path, sim.GoldenPath(path), d)
		return false
	}
	return true
}
