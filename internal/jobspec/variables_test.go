package jobspec

import (
	"strings"
	"testing"
)

func TestVariableDefaultsAndLocals(t *testing.T) {
	j, _ := mustParse(t, "variables.nomad.hcl", ParseOptions{})
	eq(t, "Datacenters", j.Datacenters, []string{"dc1"})
	eq(t, "Meta", j.Meta, map[string]string{"name": "app-web", "tags": "base", "image": "nginx:default", "n": "1"})
	eq(t, "Count", deref(t, "count", j.TaskGroups[0].Count), 1)
}

// TestVariablePrecedence checks Nomad's order: default < NOMAD_VAR_ env <
// -var-file (in order) < -var.
func TestVariablePrecedence(t *testing.T) {
	env := []string{"NOMAD_VAR_image=nginx:env", "NOMAD_VAR_tier=envtier", "NOMAD_VAR_count=2",
		"NOMAD_VAR_labels={a=\"1\"}", "NOMAD_VAR_undeclared=x", "PATH=/bin"}
	cases := []struct {
		name  string
		opts  ParseOptions
		image string
		tier  string
		count int
		dcs   []string
	}{
		{"env", ParseOptions{Env: env}, "nginx:env", "envtier", 2, []string{"dc1"}},
		{"files over env", ParseOptions{Env: env, VarFiles: []string{"testdata/vars.hcl", "testdata/vars.json"}},
			"nginx:file", "api", 3, []string{"json1", "json2"}},
		{"flags over files", ParseOptions{Env: env, VarFiles: []string{"testdata/vars.hcl"},
			Vars: map[string]string{"image": "nginx:flag", "count": "7", "dcs": `["f1"]`}},
			"nginx:flag", "envtier", 7, []string{"f1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, _ := mustParse(t, "variables.nomad.hcl", c.opts)
			eq(t, "image", j.Meta["image"], c.image)
			eq(t, "name", j.Meta["name"], "app-"+c.tier)
			eq(t, "count", deref(t, "count", j.TaskGroups[0].Count), c.count)
			eq(t, "dcs", j.Datacenters, c.dcs)
		})
	}
	j, _ := mustParse(t, "variables.nomad.hcl", ParseOptions{Env: env})
	eq(t, "map var from env", j.Meta["tags"], "base,a=1")
}

func TestVariableErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		opts ParseOptions
		want string
	}{
		{"unset", `variable "x" {}
job "j" {}`, ParseOptions{}, "test.nomad.hcl:1:1: Unset variable"},
		{"validation", `variable "n" {
  type = number
  default = 0
  validation {
    condition = var.n > 0
    error_message = "n must be positive"
  }
}
job "j" {}`, ParseOptions{}, "test.nomad.hcl:1:1: Invalid value for variable: n must be positive"},
		{"bad type from flag", `variable "n" { type = number }
job "j" {}`, ParseOptions{Vars: map[string]string{"n": "abc"}}, "Unknown variable"},
		{"undeclared flag", `job "j" {}`, ParseOptions{Vars: map[string]string{"nope": "1"}},
			`Undefined -var variable: No variable named "nope" is declared.`},
		{"undeclared file var", `job "j" {}`, ParseOptions{VarFiles: []string{"testdata/vars.hcl"}},
			"testdata/vars.hcl:1:1: Undefined -var-file variable"},
		{"default wrong type", `variable "n" {
  type = number
  default = "x"
}
job "j" {}`, ParseOptions{}, "test.nomad.hcl:3:13: Invalid value for variable"},
		{"duplicate", `variable "a" { default = 1 }
variable "a" { default = 2 }
job "j" {}`, ParseOptions{}, "test.nomad.hcl:2:1: Duplicate variable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseSrc(c.src, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestFunctions(t *testing.T) {
	j, _, err := parseSrc(`locals {
  parts = split(",", "a,b,c")
}
job "f" {
  meta = {
    upper    = upper("x")
    lower    = lower("Y")
    format   = format("%s-%03d", "id", 7)
    join     = join("+", local.parts)
    concat   = join("", concat(["a"], ["b"]))
    merge    = jsonencode(merge({a = 1}, {b = 2}))
    length   = length(local.parts)
    lookup   = lookup({k = "v"}, "k", "d")
    coalesce = coalesce(null, "c")
    min      = min(3, 1, 2)
    max      = max(3, 1, 2)
    replace  = replace("a-b", "-", "_")
    regex    = regex("[0-9]+", "abc123")
    trim     = trimspace("  t  ")
    decode   = jsondecode("{\"a\":\"b\"}").a
    num      = tonumber("42") + 1
    bool     = tobool("true")
    b64      = base64encode("hi")
    try      = try(local.parts[9], "fallback")
  }
}`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "meta", j.Meta, map[string]string{
		"upper": "X", "lower": "y", "format": "id-007", "join": "a+b+c", "concat": "ab",
		"merge": `{"a":1,"b":2}`, "length": "3", "lookup": "v", "coalesce": "c", "min": "1", "max": "3",
		"replace": "a_b", "regex": "123", "trim": "t", "decode": "b", "num": "43", "bool": "true",
		"b64": "aGk=", "try": "fallback",
	})
}

func TestFileFunctions(t *testing.T) {
	src := `job "f" { meta = { v = trimspace(file("vars.hcl")) } }`
	if _, _, err := Parse("testdata/x.nomad.hcl", []byte(src), ParseOptions{Env: []string{}}); err == nil ||
		!strings.Contains(err.Error(), "file") {
		t.Fatalf("file() allowed without AllowFS: %v", err)
	}
	j, _, err := Parse("testdata/x.nomad.hcl", []byte(src), ParseOptions{Env: []string{}, AllowFS: true})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "file", j.Meta["v"], "image = \"nginx:file\"\ncount = 3")
}
