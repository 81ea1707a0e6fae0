package builtin

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/agext/levenshtein"

	"github.com/drover-project/drover/internal/client/drivers"
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

// configTypes are the task config structs the schemas decode into: their
// `cfg` tags are the keys each driver knows.
var configTypes = map[string]reflect.Type{
	rawexec.Name: reflect.TypeFor[rawexec.TaskConfig](),
	exec.Name:    reflect.TypeFor[exec.TaskConfig](),
	docker.Name:  reflect.TypeFor[docker.TaskConfig](),
	mock.Name:    reflect.TypeFor[mock.TaskConfig](),
}

// Drivers lists the built-in drivers whose config the server checks.
func Drivers() []string {
	out := make([]string, 0, len(configTypes))
	for name := range configTypes {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// ConfigOption is one key of a driver's task config.
type ConfigOption struct {
	Key      string
	Type     string // Go type the value decodes into
	Required bool
}

// ConfigOptions lists a built-in driver's task config keys, sorted.
func ConfigOptions(driver string) []ConfigOption {
	t, ok := configTypes[driver]
	if !ok {
		return nil
	}
	var out []ConfigOption
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("cfg"), ",")
		if name == "" {
			continue
		}
		out = append(out, ConfigOption{Key: name, Type: t.Field(i).Type.String(), Required: opts == "required"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ConfigProblem is one problem with one key of a task's driver config.
type ConfigProblem struct {
	Key     string
	Message string
}

// ConfigProblems checks cfg against the built-in driver's schema and
// returns one problem per key, a misspelt key with the closest known one
// ("did you mean"). known is false for a driver Drover does not ship.
func ConfigProblems(driver string, cfg map[string]any) (known bool, problems []ConfigProblem) {
	known, err := ValidateTaskConfig(driver, cfg)
	if err == nil {
		return known, nil
	}
	var keys []string
	for _, o := range ConfigOptions(driver) {
		keys = append(keys, o.Key)
	}
	for _, e := range flatten(err) {
		var ce *drivers.ConfigError
		if !errors.As(e, &ce) {
			problems = append(problems, ConfigProblem{Message: e.Error()})
			continue
		}
		msg := ce.Error()
		if ce.Reason == drivers.ReasonUnknownField {
			if s := closest(ce.Field, keys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += fmt.Sprintf(" (the %s driver knows %s)", driver, strings.Join(keys, ", "))
			}
		}
		problems = append(problems, ConfigProblem{Key: ce.Field, Message: msg})
	}
	return known, problems
}

// flatten lists the errors inside joined errors, at any depth (a driver's
// decoder may join its own field errors with its decode's).
func flatten(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

// closest returns the known key nearest to key by edit distance when it is
// near enough to be a typo (at most 2 edits, and fewer than the key's
// length), else "".
func closest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := levenshtein.Distance(key, k, nil); d < bestD && d < len(key) {
			best, bestD = k, d
		}
	}
	return best
}
