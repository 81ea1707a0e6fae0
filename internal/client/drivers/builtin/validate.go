package builtin

import (
	"github.com/drover-project/drover/internal/client/drivers/docker"
	"github.com/drover-project/drover/internal/client/drivers/exec"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/client/drivers/rawexec"
)

// configSchemas decode a task's config exactly as each driver does before
// it starts the task, without building the driver (no cgroup, Docker or
// host checks): validating a job needs only the schema.
var configSchemas = map[string]func(map[string]any) error{
	rawexec.Name: func(c map[string]any) error { _, err := rawexec.DecodeTaskConfig(c); return err },
	exec.Name:    func(c map[string]any) error { _, err := exec.DecodeTaskConfig(c); return err },
	docker.Name:  func(c map[string]any) error { _, err := docker.DecodeTaskConfig(c); return err },
	mock.Name:    func(c map[string]any) error { _, err := mock.DecodeTaskConfig(c); return err },
}

// ValidateTaskConfig checks a task's driver config against the built-in
// driver's schema. known is false for a driver Drover does not ship (its
// config cannot be checked here).
func ValidateTaskConfig(driver string, cfg map[string]any) (known bool, err error) {
	schema, ok := configSchemas[driver]
	if !ok {
		return false, nil
	}
	return true, schema(cfg)
}
