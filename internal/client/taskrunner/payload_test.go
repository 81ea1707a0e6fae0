package taskrunner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

func TestWriteDispatchPayload(t *testing.T) {
	job := &structs.Job{Payload: []byte("data")}
	cases := []struct {
		name, file string
		symlink    bool // a symlink to outside sits at the name first
		wantErr    bool
	}{
		{name: "plain", file: "input"},
		{name: "nested", file: "a/b/input"},
		{name: "escape", file: "../../etc/x", wantErr: true},
		{name: "local itself", file: ".", wantErr: true},
		{name: "symlink replaced", file: "link", symlink: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			td := drivers.TaskDir{Dir: root, LocalDir: filepath.Join(root, "local")}
			if err := os.MkdirAll(td.LocalDir, 0o755); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "victim")
			if tc.symlink {
				if err := os.Symlink(outside, filepath.Join(td.LocalDir, tc.file)); err != nil {
					t.Fatal(err)
				}
			}
			task := &structs.Task{DispatchPayload: &structs.DispatchPayloadConfig{File: tc.file}}
			err := writeDispatchPayload(td, job, task)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if b, err := os.ReadFile(filepath.Join(td.LocalDir, tc.file)); err != nil || string(b) != "data" {
				t.Errorf("local/%s = %q %v", tc.file, b, err)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("the write followed a symlink out of local/")
			}
		})
	}
	// Not dispatched: nothing written.
	td := drivers.TaskDir{LocalDir: t.TempDir()}
	task := &structs.Task{DispatchPayload: &structs.DispatchPayloadConfig{File: "input"}}
	if err := writeDispatchPayload(td, &structs.Job{}, task); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(td.LocalDir, "input")); err == nil {
		t.Error("a job without a payload wrote a file")
	}
}
