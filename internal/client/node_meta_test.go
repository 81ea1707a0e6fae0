package client

import (
	"errors"
	"testing"
)

func (f *fakeServers) lastRegistered() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.registers) == 0 {
		return nil
	}
	return f.registers[len(f.registers)-1].Meta
}

func TestNodeMeta_DynamicKeysRegisterAndSurviveRestart(t *testing.T) {
	h := newHarness(t) // static meta: rack=r1
	c := h.start()
	blue := "blue"
	meta, err := c.ApplyNodeMeta(map[string]*string{"color": &blue, "rack": nil})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Meta["color"] != "blue" || meta.Meta["rack"] != "" || meta.Static["rack"] != "r1" {
		t.Fatalf("merged meta: %+v", meta)
	}
	h.waitFor("re-register with the dynamic keys", func() bool {
		m := h.fs.lastRegistered()
		_, hasRack := m["rack"]
		return m["color"] == "blue" && !hasRack
	})
	if err := c.Shutdown(); err != nil {
		t.Fatal(err)
	}
	c2 := h.start()
	if got := c2.NodeMeta(); got.Meta["color"] != "blue" || got.Meta["rack"] != "" {
		t.Fatalf("after restart: %+v", got)
	}
}

func TestNodeMeta_BadKeysChangeNothing(t *testing.T) {
	h := newHarness(t)
	c := h.start()
	v := "x"
	for _, bad := range []map[string]*string{nil, {"": &v}, {"has space": &v}, {`quo"te`: &v}} {
		if _, err := c.ApplyNodeMeta(bad); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if got := c.NodeMeta(); len(got.Dynamic) != 0 || got.Meta["rack"] != "r1" {
		t.Fatalf("meta changed: %+v", got)
	}
}
