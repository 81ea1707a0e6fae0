package command

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// FuzzParseNodePool: a node pool file (node pool apply) never panics; it
// parses or is refused with an error.
func FuzzParseNodePool(f *testing.F) {
	f.Add([]byte(examplePoolHCL), false)
	f.Add([]byte(examplePoolJSON), true)
	f.Add([]byte("node_pool \"a\" {\n  scheduler_config {\n    scheduler_algorithm = \"spread\"\n  }\n}\n"), false)
	f.Add([]byte("node_pool \"a\" { meta { x = 1 } }"), false)
	f.Add([]byte("node_pool {"), false)
	f.Add([]byte(`{"Name": 1}`), true)
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		p, err := parseNodePool("fuzz.hcl", data, isJSON)
		if err == nil && p == nil {
			t.Fatal("no pool and no error")
		}
	})
}

// FuzzInspectSnapshot: any file given to operator snapshot inspect is read
// or refused with an error, never a panic.
func FuzzInspectSnapshot(f *testing.F) {
	var good bytes.Buffer
	zw := gzip.NewWriter(&good)
	zw.Write([]byte("drover-snapshot-v1\n{\"ID\":\"2-5-1\",\"Index\":5,\"Term\":2,\"Size\":3,\"Version\":1}\nabc"))
	zw.Close()
	f.Add(good.Bytes())
	f.Add([]byte("not gzip"))
	var noMeta bytes.Buffer
	zw = gzip.NewWriter(&noMeta)
	zw.Write([]byte("drover-snapshot-v1\n"))
	zw.Close()
	f.Add(noMeta.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := inspectSnapshot(bytes.NewReader(data))
		if err == nil && info == nil {
			t.Fatal("no info and no error")
		}
	})
}

func TestInspectSnapshot_ReadsTheHeader(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("drover-snapshot-v1\n{\"ID\":\"2-5-1\",\"Index\":5,\"Term\":2,\"Size\":3,\"Version\":1}\nabc"))
	zw.Close()
	info, err := inspectSnapshot(&b)
	if err != nil || info.Index != 5 || info.Term != 2 || info.ID != "2-5-1" || info.StateBytes != 3 {
		t.Fatalf("%+v %v", info, err)
	}
	if _, err := inspectSnapshot(bytes.NewReader([]byte("x"))); err == nil {
		t.Fatal("a non-snapshot was accepted")
	}
}
