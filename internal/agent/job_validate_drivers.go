package agent

import (
	"fmt"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client/drivers/builtin"
	"github.com/drover-project/drover/internal/structs"
)

// validateDriverConfigs checks every task's driver config against the
// built-in driver's schema (the same decode the client runs before it
// starts the task), adding each problem to out. DriverConfigValidated is
// true only when every task uses a driver Drover ships: a third-party
// driver's config cannot be checked without its plugin.
func validateDriverConfigs(job *structs.Job, out *api.JobValidateResponse) {
	all, failed := true, false
	for _, tg := range job.TaskGroups {
		for _, task := range tg.Tasks {
			known, err := builtin.ValidateTaskConfig(task.Driver, task.Config)
			all = all && known
			if err != nil {
				failed = true
				out.ValidationErrors = append(out.ValidationErrors,
					fmt.Sprintf("group %q task %q: %s driver config: %v", tg.Name, task.Name, task.Driver, err))
			}
		}
	}
	out.DriverConfigValidated = all
	if failed {
		out.Error = strings.Join(out.ValidationErrors, "; ")
	}
}
