package docker

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeTaskConfig: any task config (jobs are outside input; the
// server decodes them with this schema) is decoded or refused, never a
// panic.
func FuzzDecodeTaskConfig(f *testing.F) {
	for _, s := range []string{
		`{"image":"redis:7"}`,
		`{"image":"x","mount":[{"type":"tmpfs","target":"/t","tmpfs_options":[{"size":100,"mode":1777}]}]}`,
		`{"image":"x","port_map":[{"http":8080}],"ports":["http"],"devices":[{"host_path":"/dev/fuse"}]}`,
		`{"image":"x","ulimit":{"nofile":"1:2"},"logging":[{"type":"json-file","config":[{"max-size":"1m"}]}]}`,
		`{"image":"x","auth":[{"username":"u","password":"p"}],"load":"a.tar","mount":{"target":"/x","source":"y"}}`,
		`{"image":"x","port_map":{"a":-1},"mount":[1],"devices":"no"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg map[string]any
		if json.Unmarshal(data, &cfg) != nil {
			return
		}
		tc, err := DecodeTaskConfig(cfg)
		if err == nil && tc.Image == "" {
			t.Fatalf("decoded without an image: %s", data)
		}
	})
}

// FuzzDockerConfig: a docker config.json (the plugin's auth config, a
// file on the node) is read or refused, never a panic.
func FuzzDockerConfig(f *testing.F) {
	for _, s := range []string{
		`{"auths":{"https://index.docker.io/v1/":{"auth":"dTpw"}}}`,
		`{"auths":{"127.0.0.1:5000":{"username":"u","password":"p"}}}`,
		`{"auths":{"http://127.0.0.1:5000/v2/":{"auth":"bm9jb2xvbg=="}}}`,
		`{"auths":{"127.0.0.1:5000":{"auth":"!!"}}}`,
	} {
		f.Add([]byte(s), "127.0.0.1:5000")
	}
	f.Fuzz(func(t *testing.T, data []byte, host string) {
		cfg, err := parseDockerConfig(data)
		if err != nil {
			return
		}
		cfg.CredHelpers, cfg.CredsStore = nil, "" // no helper programs here
		ac, found, err := cfg.lookup(host)
		if found && err == nil && ac == nil {
			t.Fatal("found without credentials")
		}
	})
}

func TestRegistryKey(t *testing.T) {
	for key, want := range map[string]string{
		"https://index.docker.io/v1/": "docker.io", "index.docker.io": "docker.io",
		"127.0.0.1:5000": "127.0.0.1:5000", "http://127.0.0.1:5000/v2/": "127.0.0.1:5000", "https://ghcr.io": "ghcr.io",
	} {
		if got := registryKey(key); got != want {
			t.Errorf("registryKey(%q) = %q, want %q", key, got, want)
		}
	}
}
