package jobspec

import (
	"errors"
	"strings"
	"testing"
)

func TestErrorPositions(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want string // prefix of one reported line
	}{
		{"unknown attribute", `job "e" {
  group "g" {
    cuont = 3
  }
}`, "test.nomad.hcl:3:5: Unsupported argument"},
		{"unknown block", `job "e" {
  group "g" {
    task "t" {
      resource {}
    }
  }
}`, "test.nomad.hcl:4:7: Unsupported block type"},
		{"wrong type", `job "e" {
  group "g" {
    count = "three"
  }
}`, "test.nomad.hcl:3:13: Incorrect attribute value type"},
		{"bad duration", `job "e" {
  update {
    stagger = "30 seconds"
  }
}`, `test.nomad.hcl:3:15: Invalid value: Inappropriate value for attribute "stagger": invalid duration "30 seconds"`},
		{"undefined variable", `job "e" {
  datacenters = [var.dc]
}`, "test.nomad.hcl:2:21: Unsupported attribute"},
		{"undefined local", `job "e" {
  region = local.r
}`, "test.nomad.hcl:2:17: Unsupported attribute"},
		{"syntax", `job "e" {
  group "g" {
`, "test.nomad.hcl:"},
		{"out of range", `job "e" {
  affinity {
    weight = 300
  }
}`, "test.nomad.hcl:3:14: Invalid value"},
		{"fractional count", `job "e" {
  group "g" { count = 1.5 }
}`, "test.nomad.hcl:2:23: Invalid value"},
		{"duplicate block", `job "e" {
  update {}
  update {}
}`, "test.nomad.hcl:3:3: Duplicate update block"},
		{"no job", `variable "x" { default = 1 }`, "test.nomad.hcl:1:1: Missing job block"},
		{"two jobs", `job "a" {}
job "b" {}`, "test.nomad.hcl:2:1: Duplicate job block"},
		{"missing label", `job {}`, "test.nomad.hcl:1:5: Missing name for job"},
		{"lifecycle without hook", `job "e" {
  group "g" {
    task "t" {
      lifecycle {}
    }
  }
}`, "test.nomad.hcl:4:7: Missing required argument"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseSrc(c.src, ParseOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			if !hasLine(err.Error(), c.want) {
				t.Fatalf("error:\n%v\nwant a line starting with %q", err, c.want)
			}
		})
	}
}

// TestAllErrorsAtOnce checks that independent problems are reported
// together, each with its own position, in source order, and through
// Diagnostics().
func TestAllErrorsAtOnce(t *testing.T) {
	_, _, err := parseSrc(`job "e" {
  bogus = 1
  group "g" {
    count = "x"
    task "t" {
      kill_timeout = "soon"
      nope {}
    }
  }
}`, ParseOptions{})
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("error %T is not *Error", err)
	}
	var got []string
	for _, d := range perr.Diagnostics() {
		got = append(got, d.Pos)
	}
	eq(t, "positions", got, []string{"test.nomad.hcl:2:3", "test.nomad.hcl:4:13",
		"test.nomad.hcl:6:22", "test.nomad.hcl:7:7"})
	eq(t, "lines", len(strings.Split(err.Error(), "\n")), 4)
}

func hasLine(text, prefix string) bool {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
