package command

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/hashicorp/nomad/api"
)

func init() { register("operator scheduler set-config", operatorSchedulerSetCmd) }

// optBool is a boolean flag that remembers whether it was given, so
// set-config changes only what the user named.
type optBool struct {
	v, set bool
}

func (o *optBool) String() string { return strconv.FormatBool(o.v) }
func (o *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	o.v, o.set = v, true
	return err
}

// or is the flag's value, or def when it was not given.
func (o *optBool) or(def bool) bool {
	if o.set {
		return o.v
	}
	return def
}

// switchFlag is an optBool given as a plain switch (-t, -t=false).
type switchFlag struct{ optBool }

func (*switchFlag) IsBoolFlag() bool { return true }

func (o optBool) apply(dst *bool) {
	if o.set {
		*dst = o.v
	}
}

func operatorSchedulerSetCmd() *cmd {
	var (
		algorithm                       string
		memOver, reject, pause          optBool
		preSystem, preService, preBatch optBool
		preSysBatch                     optBool
	)
	c := &cmd{
		Name:     "operator scheduler set-config",
		Synopsis: "Change the scheduler configuration",
		Help:     "Reads the current configuration, changes only the options given\n(each takes true or false), and writes it back.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.StringVar(&algorithm, "scheduler-algorithm", "", "binpack or spread.")
		fs.Var(&memOver, "memory-oversubscription", "Allow tasks to use memory beyond their reservation.")
		fs.Var(&reject, "reject-job-registration", "Refuse job registrations (non-management tokens).")
		fs.Var(&pause, "pause-eval-broker", "Pause the eval broker: no evaluations are scheduled.")
		fs.Var(&preSystem, "preempt-system-scheduler", "Allow preemption by system jobs.")
		fs.Var(&preService, "preempt-service-scheduler", "Allow preemption by service jobs.")
		fs.Var(&preBatch, "preempt-batch-scheduler", "Allow preemption by batch jobs.")
		fs.Var(&preSysBatch, "preempt-sysbatch-scheduler", "Allow preemption by sysbatch jobs.")
	}
	c.Run = func(e *env, args []string) error {
		cfg, err := e.schedulerConfig()
		if err != nil {
			return err
		}
		switch algorithm {
		case "":
		case "binpack", "spread":
			cfg.SchedulerAlgorithm = api.SchedulerAlgorithm(algorithm)
		default:
			return errorf("-scheduler-algorithm: %q is not binpack or spread", algorithm)
		}
		memOver.apply(&cfg.MemoryOversubscriptionEnabled)
		reject.apply(&cfg.RejectJobRegistration)
		pause.apply(&cfg.PauseEvalBroker)
		p := &cfg.PreemptionConfig
		preSystem.apply(&p.SystemSchedulerEnabled)
		preService.apply(&p.ServiceSchedulerEnabled)
		preBatch.apply(&p.BatchSchedulerEnabled)
		preSysBatch.apply(&p.SysBatchSchedulerEnabled)
		cl, _ := e.api()
		if _, _, err := cl.Operator().SchedulerSetConfiguration(cfg, e.write()); err != nil {
			return apiError("writing the scheduler configuration", err)
		}
		fmt.Fprintln(e.stdout, "Scheduler configuration updated")
		return nil
	}
	return c
}
