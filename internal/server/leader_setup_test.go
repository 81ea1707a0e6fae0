package server

import (
	"reflect"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// A new cluster's leader stores the default scheduler configuration, so
// operators read (and compare-and-set) a real one from the start.
func TestLeader_StoresTheDefaultSchedulerConfiguration(t *testing.T) {
	p := newSteppedPipeline(t)
	cfg, err := p.srv.State().SchedulerConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg == nil {
		t.Fatal("no scheduler configuration stored after the leader was established")
	}
	want := structs.DefaultSchedulerConfiguration()
	got := *cfg
	got.CreateIndex, got.ModifyIndex = want.CreateIndex, want.ModifyIndex
	if !reflect.DeepEqual(&got, want) {
		t.Fatalf("stored configuration %+v, want the default %+v", cfg, want)
	}
}

// While leading, LeaderPausedWorkersPercent of the workers pause (rounded
// down, leaving at least one): with 4 workers and 75 %, one keeps working
// and the paused ones take no eval when stepped.
func TestLeader_PausesMostWorkers(t *testing.T) {
	p := newSteppedPipeline(t, func(c *Config) {
		c.NumSchedulers = 4
		c.LeaderPausedWorkersPercent = 75
	})
	var paused []int
	for i, w := range p.srv.workers {
		if w.isPaused() {
			paused = append(paused, i)
		}
	}
	if !reflect.DeepEqual(paused, []int{1, 2, 3}) {
		t.Fatalf("paused workers %v, want [1 2 3]", paused)
	}
	id := p.register(testJob("web"))
	for _, w := range p.srv.workers[1:] {
		if w.Step() {
			t.Fatalf("paused worker %s took an eval", w.ID())
		}
	}
	if !p.srv.workers[0].Step() || p.eval(id).Status != structs.EvalStatusComplete {
		t.Fatalf("the active worker did not process the eval: %s", p.eval(id).Status)
	}
}
