package taskrunner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/drover-project/drover/internal/structs"
)

// dataReader serves the Nomad functions of one render and records what the
// render read, with the index it saw, so a watcher can wait for exactly
// those to change.
type dataReader struct {
	ctx   context.Context
	data  TemplateData
	token string
	// current, when set, is the task's identity now: a watcher's blocking
	// reads outlive a renewal of an identity with a TTL.
	current   func() string
	namespace string

	mu   sync.Mutex
	deps map[string]*templateDep
}

// templateDep is one read a render depends on: block re-runs it as a
// blocking query past index.
type templateDep struct {
	index uint64
	block func(ctx context.Context, minIndex uint64) (uint64, error)
}

func newDataReader(ctx context.Context, data TemplateData, token, namespace string) *dataReader {
	return &dataReader{ctx: ctx, data: data, token: token, namespace: namespace, deps: map[string]*templateDep{}}
}

// tok is the token to read with.
func (d *dataReader) tok() string {
	if d.current != nil {
		return d.current()
	}
	return d.token
}

func (d *dataReader) record(key string, index uint64, block func(context.Context, uint64) (uint64, error)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.deps[key]; !ok {
		d.deps[key] = &templateDep{index: index, block: block}
	}
}

// dependencies returns what the renders read.
func (d *dataReader) dependencies() []*templateDep {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*templateDep, 0, len(d.deps))
	keys := make([]string, 0, len(d.deps))
	for k := range d.deps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, d.deps[k])
	}
	return out
}

// nomadFuncs are consul-template's Nomad functions over d.
func (d *dataReader) nomadFuncs() template.FuncMap {
	return template.FuncMap{
		"nomadVar":         d.nomadVar,
		"nomadVarExists":   d.nomadVarExists,
		"nomadVarList":     d.nomadVarList,
		"nomadVarListSafe": d.nomadVarList,
		"nomadService":     d.nomadService,
		"nomadServices":    d.nomadServices,
	}
}

func (d *dataReader) readVar(path string) (*structs.VariableDecrypted, error) {
	v, index, err := d.data.Variable(d.ctx, d.tok(), d.namespace, path, 0)
	if err != nil {
		return nil, fmt.Errorf("nomadVar %q: %w", path, err)
	}
	d.record("var:"+path, index, func(ctx context.Context, min uint64) (uint64, error) {
		_, idx, err := d.data.Variable(ctx, d.tok(), d.namespace, path, min)
		return idx, err
	})
	return v, nil
}

// nomadVar returns a variable's items (a map, so `.key` works); a missing
// variable fails the render, as in Nomad.
func (d *dataReader) nomadVar(path string) (map[string]string, error) {
	v, err := d.readVar(path)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("nomadVar: variable %q not found", path)
	}
	return v.Items, nil
}

func (d *dataReader) nomadVarExists(path string) (bool, error) {
	v, err := d.readVar(path)
	return v != nil, err
}

// nomadVarList lists the variables under a prefix (metadata: .Path, ...).
func (d *dataReader) nomadVarList(prefix ...string) ([]*structs.VariableMetadata, error) {
	p := strings.Join(prefix, "")
	list, index, err := d.data.VariableList(d.ctx, d.tok(), d.namespace, p, 0)
	if err != nil {
		return nil, fmt.Errorf("nomadVarList %q: %w", p, err)
	}
	d.record("varlist:"+p, index, func(ctx context.Context, min uint64) (uint64, error) {
		_, idx, err := d.data.VariableList(ctx, d.tok(), d.namespace, p, min)
		return idx, err
	})
	return list, nil
}

// TemplateService is one instance as templates see it (consul-template's
// field names).
type TemplateService struct {
	ID, Name, Namespace, Datacenter, NodeID, JobID, AllocID, Address string
	Port                                                             int
	Tags                                                             []string
}

// nomadService lists a service's instances: nomadService "name", or with
// a leading count and key, the count instances chosen for the key.
func (d *dataReader) nomadService(args ...any) ([]*TemplateService, error) {
	if len(args) != 1 && len(args) != 3 {
		return nil, errors.New(`nomadService: want "name" or count "key" "name"`)
	}
	name := fmt.Sprint(args[len(args)-1])
	regs, index, err := d.data.Services(d.ctx, d.tok(), d.namespace, name, 0)
	if err != nil {
		return nil, fmt.Errorf("nomadService %q: %w", name, err)
	}
	d.record("service:"+name, index, func(ctx context.Context, min uint64) (uint64, error) {
		_, idx, err := d.data.Services(ctx, d.tok(), d.namespace, name, min)
		return idx, err
	})
	out := make([]*TemplateService, 0, len(regs))
	for _, r := range regs {
		out = append(out, &TemplateService{ID: r.ID, Name: r.ServiceName, Namespace: r.Namespace, Datacenter: r.Datacenter,
			NodeID: r.NodeID, JobID: r.JobID, AllocID: r.AllocID, Address: r.Address, Port: r.Port, Tags: r.Tags})
	}
	if len(args) == 3 {
		return chooseServices(out, args[0], fmt.Sprint(args[1]))
	}
	return out, nil
}

// chooseServices keeps count instances picked by rendezvous on key.
func chooseServices(in []*TemplateService, count any, key string) ([]*TemplateService, error) {
	var n int
	if _, err := fmt.Sscan(fmt.Sprint(count), &n); err != nil || n <= 0 {
		return nil, fmt.Errorf("nomadService: count %v is not a positive number", count)
	}
	if n >= len(in) {
		return in, nil
	}
	sort.SliceStable(in, func(i, j int) bool {
		return structs.RendezvousWeight(key, in[i].ID) > structs.RendezvousWeight(key, in[j].ID)
	})
	return in[:n], nil
}

// TemplateServiceStub is one service name of nomadServices.
type TemplateServiceStub struct {
	Name string
	Tags []string
}

// nomadServices lists the services of the task's namespace.
func (d *dataReader) nomadServices() ([]*TemplateServiceStub, error) {
	list, index, err := d.data.ServiceList(d.ctx, d.tok(), d.namespace, 0)
	if err != nil {
		return nil, fmt.Errorf("nomadServices: %w", err)
	}
	d.record("services", index, func(ctx context.Context, min uint64) (uint64, error) {
		_, idx, err := d.data.ServiceList(ctx, d.tok(), d.namespace, min)
		return idx, err
	})
	var out []*TemplateServiceStub
	for _, ns := range list {
		for _, s := range ns.Services {
			out = append(out, &TemplateServiceStub{Name: s.ServiceName, Tags: s.Tags})
		}
	}
	return out, nil
}
