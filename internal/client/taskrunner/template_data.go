package taskrunner

import (
	"context"

	"github.com/drover-project/drover/internal/structs"
)

// TemplateData is where templates read Nomad variables and services. Every
// read is a blocking query: with minIndex > 0 it returns once the answer's
// index passes minIndex (or its wait ends), so a watcher can follow changes.
// token is the task's workload identity.
type TemplateData interface {
	Variable(ctx context.Context, token, namespace, path string, minIndex uint64) (*structs.VariableDecrypted, uint64, error)
	VariableList(ctx context.Context, token, namespace, prefix string, minIndex uint64) ([]*structs.VariableMetadata, uint64, error)
	Services(ctx context.Context, token, namespace, name string, minIndex uint64) ([]*structs.ServiceRegistration, uint64, error)
	ServiceList(ctx context.Context, token, namespace string, minIndex uint64) ([]*structs.ServiceRegistrationListStub, uint64, error)
}
