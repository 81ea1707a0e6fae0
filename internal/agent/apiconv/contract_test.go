package apiconv

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/jobspec/fields"
)

// convertedElsewhere are api fields the skip lists name that the
// conversion does use, though not as a same-named structs field.
var convertedElsewhere = map[string]bool{
	"LogConfig.Enabled":   true, // folded into Disabled (logConfigToStructs)
	"PeriodicConfig.Spec": true, // folded into Specs (periodicToStructs)
	// converted to structs.Template (templateToStructs); the fixture
	// lists them because the full api fixture leaves them unset
	"Template.ChangeScript": true, "Template.Splay": true, "Template.Wait": true, "Template.ErrMissingKey": true,
	// server-owned: the register path overwrites them (fields: owned)
	"ScalingPolicy.Type": true, "ScalingPolicy.ID": true, "ScalingPolicy.Namespace": true, "ScalingPolicy.Target": true,
	"ScalingPolicy.CreateIndex": true, "ScalingPolicy.ModifyIndex": true,
	// the default identity (identitiesToStructs)
	"Task.Identity": true,
	// a group's volume_mount lives in the task; the api field is the same
	"Task.VolumeMounts": true,
	// unset (nil) pointers become zero values: the scheduler's default
	"TaskGroup.Volumes": true,
	"Service.Address":   true, // servicesToStructs
	// merged into each check's check_restart (checksToStructs)
	"Service.CheckRestart": true,
}

// TestDroppedFieldsAreNotHonoured: every api field the conversion drops
// (the fixtures' skip lists) is refused or warned by the field contract
// (internal/jobspec/fields), honoured only for the value Drover acts like
// anyway, or covered by a refused or warned block above it, so that
// nothing a client sends is dropped silently.
func TestDroppedFieldsAreNotHonoured(t *testing.T) {
	for _, path := range apiJobSkips() {
		keys, ok := typeKeys(reflect.TypeOf(api.Job{}), strings.Split(path, "."))
		if !ok {
			t.Errorf("%s: not a field path of api.Job", path)
			continue
		}
		if convertedElsewhere[keys[len(keys)-1]] {
			continue
		}
		covered := false
		for _, k := range keys {
			// A row honouring only some values accepts just the value
			// Drover acts like anyway (address_mode "auto", on_update
			// "require_healthy"): dropping it loses nothing.
			if r := fields.Lookup(k); r != nil && (r.State != fields.Honoured || r.Allow != nil) {
				covered = true
				break
			}
		}
		if !covered {
			t.Errorf("%s (%s): dropped by the conversion but honoured by the field contract", path, keys[len(keys)-1])
		}
	}
}

// typeKeys turns a dotted field path of t into the contract's
// "Type.Field" keys of each step.
func typeKeys(t reflect.Type, path []string) ([]string, bool) {
	var keys []string
	for _, name := range path {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		f, ok := t.FieldByName(name)
		if !ok {
			return nil, false
		}
		keys = append(keys, t.Name()+"."+name)
		t = f.Type
	}
	return keys, true
}
