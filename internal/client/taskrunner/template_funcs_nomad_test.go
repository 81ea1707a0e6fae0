package taskrunner

import (
	"context"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// fakeData answers the templates' reads from maps, at a fixed index.
type fakeData struct {
	vars     map[string]map[string]string
	services map[string][]*structs.ServiceRegistration
	tokens   []string
}

func (f *fakeData) Variable(_ context.Context, token, _, path string, _ uint64) (*structs.VariableDecrypted, uint64, error) {
	f.tokens = append(f.tokens, token)
	items, ok := f.vars[path]
	if !ok {
		return nil, 7, nil
	}
	return &structs.VariableDecrypted{VariableMetadata: structs.VariableMetadata{Path: path}, Items: items}, 7, nil
}

func (f *fakeData) VariableList(_ context.Context, _, _, prefix string, _ uint64) ([]*structs.VariableMetadata, uint64, error) {
	var out []*structs.VariableMetadata
	for p := range f.vars {
		if strings.HasPrefix(p, prefix) {
			out = append(out, &structs.VariableMetadata{Path: p})
		}
	}
	return out, 7, nil
}

func (f *fakeData) Services(_ context.Context, _, _, name string, _ uint64) ([]*structs.ServiceRegistration, uint64, error) {
	return f.services[name], 9, nil
}

func (f *fakeData) ServiceList(context.Context, string, string, uint64) ([]*structs.ServiceRegistrationListStub, uint64, error) {
	stub := &structs.ServiceRegistrationListStub{Namespace: "default"}
	for name := range f.services {
		stub.Services = append(stub.Services, &structs.ServiceRegistrationStub{ServiceName: name})
	}
	return []*structs.ServiceRegistrationListStub{stub}, 9, nil
}

func TestNomadTemplateFunctions(t *testing.T) {
	data := &fakeData{
		vars: map[string]map[string]string{"nomad/jobs/app": {"user": "admin", "pass": "s3cret"}},
		services: map[string][]*structs.ServiceRegistration{"web": {
			{ID: "a", ServiceName: "web", Address: "10.0.0.1", Port: 8001},
			{ID: "b", ServiceName: "web", Address: "10.0.0.2", Port: 8002},
			{ID: "c", ServiceName: "web", Address: "10.0.0.3", Port: 8003},
		}},
	}
	cases := []struct {
		tmpl, want, wantErr string
		missingKey          bool
	}{
		{tmpl: `{{ with nomadVar "nomad/jobs/app" }}{{ .user }}:{{ .pass }}{{ end }}`, want: "admin:s3cret"},
		{tmpl: `{{ nomadVarExists "nomad/jobs/app" }} {{ nomadVarExists "nope" }}`, want: "true false"},
		{tmpl: `{{ range nomadVarList "nomad/" }}{{ .Path }}{{ end }}`, want: "nomad/jobs/app"},
		{tmpl: `{{ nomadVar "nope" }}`, wantErr: `variable "nope" not found`},
		{tmpl: `{{ range nomadService "web" }}{{ .Address }}:{{ .Port }} {{ end }}`, want: "10.0.0.1:8001 10.0.0.2:8002 10.0.0.3:8003 "},
		{tmpl: `{{ len (nomadService 2 "me" "web") }}`, want: "2"},
		{tmpl: `{{ range nomadServices }}{{ .Name }}{{ end }}`, want: "web"},
		{tmpl: `{{ with nomadVar "nomad/jobs/app" }}{{ .missing }}{{ end }}`, want: "<no value>"}, // text/template's (and consul-template's) default
		{tmpl: `{{ with nomadVar "nomad/jobs/app" }}{{ .missing }}{{ end }}`, missingKey: true, wantErr: "missing"},
	}
	for _, tc := range cases {
		t.Run(tc.tmpl, func(t *testing.T) {
			rd := newDataReader(context.Background(), data, "tok", "default")
			r, err := renderTemplate(t.TempDir(), &structs.Template{EmbeddedTmpl: tc.tmpl, DestPath: "out", ErrMissingKey: tc.missingKey},
				nil, NewInterpolator(nil, nil, ""), rd)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(r.content) != tc.want {
				t.Fatalf("got %q (%v), want %q", r.content, err, tc.want)
			}
			if len(rd.dependencies()) == 0 {
				t.Fatal("the render recorded nothing to watch")
			}
		})
	}
	for _, tok := range data.tokens {
		if tok != "tok" {
			t.Fatalf("a read went without the task's identity: %q", tok)
		}
	}
	// The same key picks the same instances, as the API's choose does.
	pick := func() string {
		rd := newDataReader(context.Background(), data, "", "default")
		r, err := renderTemplate(t.TempDir(), &structs.Template{EmbeddedTmpl: `{{ range nomadService 1 "k" "web" }}{{ .ID }}{{ end }}`, DestPath: "out"}, nil, NewInterpolator(nil, nil, ""), rd)
		if err != nil {
			t.Fatal(err)
		}
		return string(r.content)
	}
	if a, b := pick(), pick(); a != b || a == "" {
		t.Fatalf("rendezvous pick not stable: %q, %q", a, b)
	}
}
