package structs

import (
	"regexp"
	"strings"
)

// reservedTaskNames are directory names of the alloc dir layout: a task
// named after one would write over it (".", "..", the shared "alloc").
var reservedTaskNames = map[string]bool{".": true, "..": true, "alloc": true}

// validateTaskName refuses names that are not a single safe directory
// name: a task's name becomes its directory in the alloc dir.
func validateTaskName(v validator, name string) {
	switch {
	case name == "":
		v.fail("Name", "is required")
	case reservedTaskNames[name]:
		v.fail("Name", "%q is reserved: task names become directory names in the alloc dir", name)
	case strings.ContainsAny(name, "/\\"):
		v.fail("Name", "must not contain a path separator: task names become directory names")
	case strings.ContainsRune(name, 0):
		v.fail("Name", "must not contain a NUL byte")
	}
}

// versionTermPattern is one term of a version constraint: an optional
// operator and a dotted version with optional prerelease and build.
var versionTermPattern = regexp.MustCompile(`^(>=|<=|!=|~>|=|>|<)?\s*v?[0-9]+(\.[0-9]+)*(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// validVersionConstraint reports whether s is a comma-separated list of
// version terms (">= 1.2, < 2.0"), as the version and semver operators
// read them. A constraint still holding ${...} is interpolated per node
// and cannot be checked here.
func validVersionConstraint(s string) bool {
	if strings.Contains(s, "${") {
		return true
	}
	for _, term := range strings.Split(s, ",") {
		if !versionTermPattern.MatchString(strings.TrimSpace(term)) {
			return false
		}
	}
	return true
}
