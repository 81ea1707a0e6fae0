package state

import (
	"bytes"
	"os"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// FuzzRestore feeds Restore arbitrary bytes: a snapshot file is outside
// input, and whatever it holds, Restore returns (an error or a state); it
// never panics or hangs. Seeds are snapshots of both formats.
func FuzzRestore(f *testing.F) {
	if v1, err := os.ReadFile(v1Snapshot); err == nil {
		f.Add(v1)
	}
	s := newStore(f)
	must(f, s.UpsertJob(10, 100, mockJob("web")))
	job, _ := s.JobByID(nil, "default", "web")
	must(f, s.UpsertNode(11, mockNode("n1")))
	must(f, s.UpsertAllocs(12, []*structs.Allocation{mockAlloc("a1", job, "n1"), mockAlloc("a2", job, "n1")}))
	var buf bytes.Buffer
	must(f, s.Snapshot().Persist(&buf))
	f.Add(buf.Bytes())
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x95})
	f.Fuzz(func(t *testing.T, data []byte) {
		dst, err := NewStateStore()
		if err != nil {
			t.Fatal(err)
		}
		_ = dst.Restore(bytes.NewReader(data))
	})
}
