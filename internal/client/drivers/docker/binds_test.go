package docker

import (
	"slices"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

func TestBindsIncludeHostVolumeMounts(t *testing.T) {
	tc := &drivers.TaskConfig{
		TaskDir: drivers.TaskDir{Dir: "/a/t", AllocDir: "/a/alloc", LocalDir: "/a/t/local", SecretsDir: "/a/t/secrets"},
		Mounts: []drivers.MountConfig{
			{HostPath: "/srv/shared", TaskPath: "/data", ReadOnly: true},
			{HostPath: "/srv/scratch", TaskPath: "/scratch"},
		},
	}
	got, _, err := binds(tc, &TaskConfig{}, &PluginConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/a/alloc:/alloc", "/a/t/local:/local", "/a/t/secrets:/secrets", "/srv/shared:/data:ro", "/srv/scratch:/scratch"}
	if !slices.Equal(got, want) {
		t.Fatalf("binds %v, want %v", got, want)
	}
}
