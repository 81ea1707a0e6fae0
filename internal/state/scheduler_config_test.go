package state

import (
	"testing"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestSchedulerConfig(t *testing.T) {
	s := newStore(t)
	ws := memdb.NewWatchSet()
	if cfg, err := s.SchedulerConfig(ws); cfg != nil || err != nil {
		t.Fatalf("unset config = %v, %v", cfg, err)
	}
	cfg := structs.DefaultSchedulerConfiguration()
	if ok, err := s.SchedulerCASConfig(9, 5, cfg); ok || err != nil {
		t.Fatalf("CAS on unset config with cidx 5 = %v, %v", ok, err)
	}
	must(t, s.SchedulerSetConfig(10, cfg))
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}
	got, _ := s.SchedulerConfig(nil)
	if got == cfg || got.CreateIndex != 10 || got.ModifyIndex != 10 {
		t.Fatalf("stored %+v", got)
	}

	spread := &structs.SchedulerConfiguration{SchedulerAlgorithm: structs.SchedulerAlgorithmSpread}
	tests := []struct {
		index, cidx uint64
		wantOK      bool
		wantModify  uint64
	}{
		{11, 9, false, 10},
		{12, 10, true, 12},
		{13, 10, false, 12},
		{14, 12, true, 14},
	}
	for _, tt := range tests {
		ok, err := s.SchedulerCASConfig(tt.index, tt.cidx, spread)
		must(t, err)
		got, _ := s.SchedulerConfig(nil)
		if ok != tt.wantOK || got.ModifyIndex != tt.wantModify || got.CreateIndex != 10 {
			t.Fatalf("CAS(%d, cidx %d) = %v, modify %d create %d", tt.index, tt.cidx, ok, got.ModifyIndex, got.CreateIndex)
		}
	}
	wantIndex(t, s, TableSchedulerConfig, 14)
	if got, _ := s.SchedulerConfig(nil); got.SchedulerAlgorithm != structs.SchedulerAlgorithmSpread {
		t.Fatal("CAS value not stored")
	}
}
