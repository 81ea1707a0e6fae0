package drivers

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

type sample struct {
	Name   string            `cfg:"name,required"`
	N      int               `cfg:"n"`
	D      time.Duration     `cfg:"d"`
	On     bool              `cfg:"on"`
	List   []string          `cfg:"list"`
	Labels map[string]string `cfg:"labels"`
}

func TestDecodeAcceptsHCLAndJSONShapes(t *testing.T) {
	var s sample
	err := Decode(map[string]any{
		"name": "x", "n": json.Number("3"), "d": "1m", "on": true,
		"list": []any{"a", "b"}, "labels": []any{map[string]any{"k": "v"}, map[string]any{"k2": "v2"}},
	}, &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 3 || s.D != time.Minute || !s.On || len(s.List) != 2 || s.Labels["k2"] != "v2" {
		t.Fatalf("decoded %+v", s)
	}
	if err := Decode(map[string]any{"name": "x", "n": 4.0, "d": float64(time.Second)}, &s); err != nil || s.N != 4 || s.D != time.Second {
		t.Fatalf("float numbers: %v %+v", err, s)
	}
}

func TestDecodeReportsEveryField(t *testing.T) {
	var s sample
	err := Decode(map[string]any{"n": "3", "zzz": 1, "aaa": 2}, &s)
	msg := err.Error()
	for _, want := range []string{`"name": required`, `"n": expected an integer, got string`, `"aaa": unknown field`, `"zzz": unknown field`} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in %q", want, msg)
		}
	}
	if strings.Index(msg, `"aaa"`) > strings.Index(msg, `"zzz"`) {
		t.Errorf("unknown fields not sorted: %q", msg)
	}
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatal("not a ConfigError")
	}
}

func TestParseSignal(t *testing.T) {
	for in, want := range map[string]string{"": "SIGTERM", "SIGINT": "SIGINT", "hup": "SIGHUP", "9": "SIGKILL"} {
		sig, err := ParseSignal(in)
		if err != nil || SignalName(sig) != want {
			t.Errorf("ParseSignal(%q) = %v, %v", in, sig, err)
		}
	}
	if _, err := ParseSignal("SIGNOPE"); err == nil {
		t.Error("unknown signal accepted")
	}
}

func TestResourcesLimits(t *testing.T) {
	r := Resources{MemoryMB: 100}
	if r.MemoryLimitBytes() != 100<<20 || r.MemorySoftBytes() != 0 {
		t.Fatalf("plain: %d %d", r.MemoryLimitBytes(), r.MemorySoftBytes())
	}
	r.MemoryMaxMB = 200
	if r.MemoryLimitBytes() != 200<<20 || r.MemorySoftBytes() != 100<<20 {
		t.Fatalf("oversubscribed: %d %d", r.MemoryLimitBytes(), r.MemorySoftBytes())
	}
}
