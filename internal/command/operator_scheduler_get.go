package command

import (
	"fmt"

	"github.com/hashicorp/nomad/api"
)

func init() { register("operator scheduler get-config", operatorSchedulerGetCmd) }

func operatorSchedulerGetCmd() *cmd {
	c := &cmd{
		Name: "operator scheduler get-config", Read: true,
		Synopsis: "Display the scheduler configuration",
	}
	c.Run = func(e *env, args []string) error {
		cfg, err := e.schedulerConfig()
		if err != nil {
			return err
		}
		return e.output(cfg, func() error {
			p := cfg.PreemptionConfig
			writeKV(e.stdout, [][2]string{
				{"Scheduler Algorithm", string(cfg.SchedulerAlgorithm)},
				{"Memory Oversubscription", fmt.Sprint(cfg.MemoryOversubscriptionEnabled)},
				{"Reject Job Registration", fmt.Sprint(cfg.RejectJobRegistration)},
				{"Pause Eval Broker", fmt.Sprint(cfg.PauseEvalBroker)},
				{"Preemption System Scheduler", fmt.Sprint(p.SystemSchedulerEnabled)},
				{"Preemption Service Scheduler", fmt.Sprint(p.ServiceSchedulerEnabled)},
				{"Preemption Batch Scheduler", fmt.Sprint(p.BatchSchedulerEnabled)},
				{"Preemption SysBatch Scheduler", fmt.Sprint(p.SysBatchSchedulerEnabled)},
			})
			return nil
		})
	}
	return c
}

func (e *env) schedulerConfig() (*api.SchedulerConfiguration, error) {
	cl, err := e.api()
	if err != nil {
		return nil, err
	}
	resp, _, err := cl.Operator().SchedulerGetConfiguration(e.query())
	if err != nil {
		return nil, apiError("reading the scheduler configuration", err)
	}
	if resp.SchedulerConfig == nil {
		return nil, errorf("the agent returned no scheduler configuration")
	}
	return resp.SchedulerConfig, nil
}
