package fields

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/nomad/api"
)

// FuzzCheck: any job a client can send as JSON is checked without a
// panic, and every finding has a path and a message.
func FuzzCheck(f *testing.F) {
	seed, _ := json.Marshal(checkJob())
	f.Add(seed)
	f.Add([]byte(`{"TaskGroups":[{"Services":[{"Name":"a","Connect":{"SidecarService":{}}}],"Networks":[{"Mode":"bridge"}],"Tasks":[{"Vault":{},"Templates":[null,{"LeftDelim":"[["}]}]}],"UI":{}}`))
	f.Add([]byte(`{"TaskGroups":[null,{"Volumes":{"x":null,"y":{"Type":"csi"}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var job api.Job
		if json.Unmarshal(data, &job) != nil {
			return
		}
		refused, warned := Check(&job)
		for _, fd := range append(refused, warned...) {
			if fd.Path == "" || fd.Message == "" {
				t.Fatalf("finding without path or message: %+v", fd)
			}
		}
	})
}
