// Package builtin wires the drivers that ship with drover into a
// drivers.Registry. It is separate from package drivers because each
// driver imports drivers for the interface.
package builtin

import (
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/drivers/docker"
	"github.com/drover-project/drover/internal/client/drivers/exec"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/client/drivers/rawexec"
)

// Factories are the built-in drivers by name. The mock driver is left out
// so real clients never advertise it; tests and -dev add it explicitly.
func Factories() map[string]drivers.Factory {
	return map[string]drivers.Factory{
		rawexec.Name: rawexec.New,
		exec.Name:    exec.New,
		docker.Name:  docker.New,
	}
}

// NewRegistry builds the built-in drivers from the agent's plugin blocks
// (name -> config body). withMock adds the mock driver.
func NewRegistry(plugins map[string]map[string]any, env drivers.Env, withMock bool) (*drivers.Registry, error) {
	f := Factories()
	if withMock {
		f[mock.Name] = mock.New
	}
	return drivers.NewRegistry(f, plugins, env)
}
