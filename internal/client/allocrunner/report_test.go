package allocrunner

import (
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

func TestClientStatus(t *testing.T) {
	ts := func(state string, failed bool) *structs.TaskState {
		return &structs.TaskState{State: state, Failed: failed}
	}
	cases := []struct {
		states map[string]*structs.TaskState
		want   string
	}{
		{map[string]*structs.TaskState{"a": ts("pending", false)}, structs.AllocClientStatusPending},
		{map[string]*structs.TaskState{"a": ts("running", false), "b": ts("pending", false)}, structs.AllocClientStatusRunning},
		{map[string]*structs.TaskState{"a": ts("dead", false), "b": ts("dead", false)}, structs.AllocClientStatusComplete},
		{map[string]*structs.TaskState{"a": ts("running", false), "b": ts("dead", true)}, structs.AllocClientStatusFailed},
	}
	for i, c := range cases {
		if got, _ := ClientStatus(c.states); got != c.want {
			t.Errorf("case %d: %s, want %s", i, got, c.want)
		}
	}
}
