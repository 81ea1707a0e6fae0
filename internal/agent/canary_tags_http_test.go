package agent

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/testutil"
)

// canary_tags through a real client: a canary advertises them while the
// old version keeps its tags; once promoted, the canary advertises the
// service's tags.
func TestCanaryTags_AdvertisedUntilPromotion(t *testing.T) {
	_, c := clientTestAgent(t)
	job := mockServiceJob("cnry", 1)
	tg := job.TaskGroups[0]
	tg.Services = []*api.Service{{Name: "cnry-web", Provider: "nomad", Tags: []string{"live"}, CanaryTags: []string{"canary"}}}
	tg.Update = &api.UpdateStrategy{MaxParallel: pointer(1), Canary: pointer(1), HealthCheck: pointer("task_states"),
		MinHealthyTime: pointer(500 * time.Millisecond), HealthyDeadline: pointer(time.Minute), ProgressDeadline: pointer(2 * time.Minute)}
	old := runJob(t, c, job)

	tg.Tasks[0].Env = map[string]string{"V": "2"}
	if _, _, err := c.Jobs().Register(job, nil); err != nil {
		t.Fatal(err)
	}
	tagsByAlloc := func() (map[string][]string, error) {
		regs, _, err := c.Services().Get("cnry-web", nil)
		out := map[string][]string{}
		for _, r := range regs {
			out[r.AllocID] = r.Tags
		}
		return out, err
	}
	var d *api.Deployment
	var canary string
	testutil.WaitFor(t, 30*time.Second, "a healthy canary advertising canary_tags", func() (bool, string) {
		d, _, _ = c.Jobs().LatestDeployment("cnry", nil)
		if d == nil || len(d.TaskGroups["g"].PlacedCanaries) != 1 {
			return false, "no canary yet"
		}
		canary = d.TaskGroups["g"].PlacedCanaries[0]
		tags, err := tagsByAlloc()
		return err == nil && d.TaskGroups["g"].HealthyAllocs == 1 && slices.Equal(tags[canary], []string{"canary"}) &&
			slices.Equal(tags[old.ID], []string{"live"}), fmt.Sprintf("%v %v healthy %d", tags, err, d.TaskGroups["g"].HealthyAllocs)
	})
	if _, _, err := c.Deployments().PromoteAll(d.ID, nil); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 30*time.Second, "the promoted canary advertising the service's tags", func() (bool, string) {
		tags, err := tagsByAlloc()
		return err == nil && slices.Equal(tags[canary], []string{"live"}), fmt.Sprint(tags, err)
	})
}
