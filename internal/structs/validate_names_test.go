package structs

import (
	"errors"
	"testing"
)

func TestTaskNameValidation(t *testing.T) {
	for name, bad := range map[string]bool{
		"web": false, "web-1.v2": false, "alloc2": false,
		".": true, "..": true, "alloc": true, "a/b": true, `a\b`: true, "a\x00b": true, "": true,
	} {
		j := testJob()
		task(j, 0, 0).Name = name
		j.Canonicalize()
		var ve ValidationErrors
		err := j.Validate()
		got := errors.As(err, &ve) && ve.HasField("TaskGroups[0].Tasks[0].Name")
		if got != bad {
			t.Errorf("task name %q: error %v, want refused=%v", name, err, bad)
		}
	}
}

func TestVersionConstraintValidation(t *testing.T) {
	for rtarget, bad := range map[string]bool{
		">= 1.2, < 2.0": false, "1.2.3": false, "~> 1.2": false, "= v1.0.0-beta.1+b5": false, "${meta.v}": false,
		">>>1": true, ">= x": true, "1..2": true, ">= 1,": true,
	} {
		j := testJob()
		j.Constraints = []*Constraint{{LTarget: "${attr.kernel.version}", RTarget: rtarget, Operand: ConstraintVersion}}
		var ve ValidationErrors
		err := j.Validate()
		got := errors.As(err, &ve) && ve.HasField("Constraints[0].RTarget")
		if got != bad {
			t.Errorf("version constraint %q: error %v, want refused=%v", rtarget, err, bad)
		}
	}
}
