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
// down, leaving at least one working); the paused ones take no eval when
// stepped, the working ones do.
func TestLeader_PausesMostWorkers(t *testing.T) {
	for _, c := range []struct {
		workers, percent int
		paused           []int
	}{
		{4, 50, []int{2, 3}},
		{4, 75, []int{1, 2, 3}},
		{2, 100, []int{1}}, // at least one keeps working
		{1, 75, nil},       // 75 % of one worker rounds down to none
	} {
		p := newSteppedPipeline(t, func(cfg *Config) {
			cfg.NumSchedulers = c.workers
			cfg.LeaderPausedWorkersPercent = c.percent
		})
		var paused []int
		for i, w := range p.srv.workers {
			if w.isPaused() {
				paused = append(paused, i)
			}
		}
		if !reflect.DeepEqual(paused, c.paused) {
			t.Fatalf("%d workers, %d %%: paused %v, want %v", c.workers, c.percent, paused, c.paused)
		}
		id := p.register(testJob("web"))
		for _, i := range c.paused {
			if p.srv.workers[i].Step() {
				t.Fatalf("%d workers, %d %%: paused worker %d took an eval", c.workers, c.percent, i)
			}
		}
		if !p.srv.workers[0].Step() || p.eval(id).Status != structs.EvalStatusComplete {
			t.Fatalf("%d workers, %d %%: the first worker did not process the eval: %s", c.workers, c.percent, p.eval(id).Status)
		}
	}
}
