package state

import (
	"testing"
	"time"

	"github.com/hashicorp/go-memdb"

	"github.com/drover-project/drover/internal/structs"
)

func TestAutopilotConfig_SetAndCAS(t *testing.T) {
	s := newStore(t)
	ws := memdb.NewWatchSet()
	if cfg, err := s.AutopilotConfig(ws); cfg != nil || err != nil {
		t.Fatalf("unset config = %v, %v", cfg, err)
	}
	cfg := &structs.AutopilotConfig{CleanupDeadServers: true, LastContactThreshold: 200 * time.Millisecond}
	if ok, err := s.AutopilotSetConfig(10, cfg, false); !ok || err != nil {
		t.Fatalf("set = %v, %v", ok, err)
	}
	if !watchFired(ws) {
		t.Fatal("watch did not fire")
	}
	tests := []struct {
		index, cidx uint64
		wantOK      bool
		wantModify  uint64
		wantTrail   uint64
	}{
		{11, 9, false, 10, 0},  // stale CAS: nothing changes
		{12, 10, true, 12, 12}, // matching CAS
		{13, 10, false, 12, 12},
		{14, 0, false, 12, 12}, // 0 only matches "never set"
	}
	for _, tt := range tests {
		next := *cfg
		next.MaxTrailingLogs, next.ModifyIndex = tt.index, tt.cidx
		ok, err := s.AutopilotSetConfig(tt.index, &next, true)
		must(t, err)
		got, _ := s.AutopilotConfig(nil)
		if ok != tt.wantOK || got.ModifyIndex != tt.wantModify || got.CreateIndex != 10 || got.MaxTrailingLogs != tt.wantTrail {
			t.Fatalf("CAS(%d, cidx %d) = %v, stored %+v", tt.index, tt.cidx, ok, got)
		}
	}
	if cfg.ModifyIndex != 0 {
		t.Fatal("the caller's config was changed: the store must copy it")
	}
	wantIndex(t, s, TableAutopilotConfig, 12)
}
