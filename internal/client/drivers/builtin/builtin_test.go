package builtin

import (
	"context"
	"errors"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(map[string]map[string]any{"raw_exec": {"enabled": true}}, drivers.Env{}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Names(); len(got) != 4 {
		t.Fatalf("names = %v", got)
	}
	infos := r.FingerprintAll(context.Background())
	if !infos["raw_exec"].Healthy || !infos["mock"].Healthy {
		t.Fatalf("fingerprints = %+v %+v", infos["raw_exec"], infos["mock"])
	}
	if _, err := r.Get("rkt"); !errors.Is(err, drivers.ErrUnknownDriver) {
		t.Fatalf("get = %v", err)
	}
}

func TestRawExecOffByDefault(t *testing.T) {
	r, err := NewRegistry(nil, drivers.Env{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if info := r.FingerprintAll(context.Background())["raw_exec"]; info.Detected {
		t.Fatalf("raw_exec detected without enabled = true: %+v", info)
	}
}

func TestRegistryRejectsBadPluginConfig(t *testing.T) {
	if _, err := NewRegistry(map[string]map[string]any{"nosuch": {}}, drivers.Env{}, false); !errors.Is(err, drivers.ErrUnknownDriver) {
		t.Fatalf("unknown plugin: %v", err)
	}
	_, err := NewRegistry(map[string]map[string]any{"raw_exec": {"enabled": "yes"}}, drivers.Env{}, false)
	var ce *drivers.ConfigError
	if !errors.As(err, &ce) || ce.Field != "enabled" {
		t.Fatalf("bad raw_exec config: %v", err)
	}
}
