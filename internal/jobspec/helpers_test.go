package jobspec

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// mustParse parses testdata/name with an empty environment, failing the
// test on error.
func mustParse(t *testing.T, name string, opts ParseOptions) (*api.Job, []Warning) {
	t.Helper()
	if opts.Env == nil {
		opts.Env = []string{}
	}
	opts.AllowUnsupported = true // these tests are of the decoding; contract_test.go has the refusals
	job, warns, err := ParseFile(filepath.Join("testdata", name), opts)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return job, warns
}

// parseSrc parses inline source named "test.nomad.hcl".
func parseSrc(src string, opts ParseOptions) (*api.Job, []Warning, error) {
	if opts.Env == nil {
		opts.Env = []string{}
	}
	return Parse("test.nomad.hcl", []byte(src), opts)
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// deref returns *p, or the zero value and a test error when p is nil.
func deref[T any](t *testing.T, what string, p *T) T {
	t.Helper()
	var zero T
	if p == nil {
		t.Errorf("%s is nil", what)
		return zero
	}
	return *p
}

func dur(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}
