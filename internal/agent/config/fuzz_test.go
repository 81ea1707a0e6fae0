package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds agent config files, HCL or JSON (the first byte picks),
// through decoding, merging onto the defaults and validation. Nothing may
// panic, and every refusal must say why.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			kind := byte(0)
			if filepath.Ext(s) == ".json" {
				kind = 1
			}
			f.Add(append([]byte{kind}, b...))
		}
	}
	f.Add([]byte("\x00limits {\n  http_max_conns_per_client = 5\n}\nserver {\n  job_max_count = 3\n}\n"))
	f.Add([]byte("\x00limits {\n  https_handshake_timeout = \"2s\"\n  rpc_handshake_timeout = \"-1s\"\n}\n"))
	// HCL1 forms the loader rewrites: quoted keys, map blocks.
	f.Add([]byte("\x00\"region\" = \"eu\"\nclient {\n  meta {\n    \"a.b\" = \"1\"\n  }\n  options{\n  }\n}\n\"x\"=\n"))
	f.Add([]byte("\x00telemetry {\n  prefix_filter = [\"+nomad.raft\", \"bad\"]\n  statsd_adress = 1\n}\nui { label { text = 1 } }\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		name := "fuzz.hcl"
		if in[0]%2 == 1 {
			name = "fuzz.json"
		}
		c, err := LoadBytes(name, in[1:])
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		merged := Default().Merge(c)
		_ = merged.Validate()
		_ = merged.Copy()
	})
}
