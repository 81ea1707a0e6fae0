package structs

import "testing"

// TestValidateVariablePath_ReservedNomadPaths: under nomad/ only
// nomad/jobs (and below) and one level below nomad/job-templates (the
// web UI's job templates) may be written, as in Nomad.
func TestValidateVariablePath_ReservedNomadPaths(t *testing.T) {
	for path, ok := range map[string]bool{
		"app/config":                  true,
		"nomad/jobs":                  true,
		"nomad/jobs/web/g/t":          true,
		"nomad/job-templates/hello":   true,
		"nomad":                       false,
		"nomad/secrets":               false,
		"nomad/job-templates":         false,
		"nomad/job-templates/a/b":     false,
		"nomad/jobs-not-really/thing": false,
	} {
		if err := ValidateVariablePath(path); (err == nil) != ok {
			t.Errorf("%s: %v, want ok=%v", path, err, ok)
		}
	}
}
