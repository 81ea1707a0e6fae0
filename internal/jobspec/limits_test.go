package jobspec

import (
	"strings"
	"testing"
)

func TestFunctionLimits_RefuseUnboundedResults(t *testing.T) {
	cases := []struct {
		expr, want string
	}{
		{`length(range(10000000000))`, "at most 100000"},
		{`length(range(0, 1e9, 1))`, "at most 100000"},
		{`format("%999999999d", 1)`, "exceeds 10000"},
		{`format("%.99999999f", 1)`, "exceeds 10000"},
		{`length(setproduct(range(1000), range(1000)))`, "more than 100000"},
	}
	for _, tc := range cases {
		src := "job \"x\" {\n  meta {\n    v = " + tc.expr + "\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n    }\n  }\n}\n"
		_, _, err := Parse("bomb.nomad.hcl", []byte(src), ParseOptions{Env: []string{}})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bomb.nomad.hcl:3") {
			t.Errorf("%s: err = %v, want a positioned error containing %q", tc.expr, err, tc.want)
		}
	}
	// Ordinary uses still work.
	src := "job \"x\" {\n  meta {\n    a = length(range(10))\n    b = format(\"%05d\", 7)\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n    }\n  }\n}\n"
	job, _, err := Parse("ok.nomad.hcl", []byte(src), ParseOptions{Env: []string{}})
	if err != nil || job.Meta["a"] != "10" || job.Meta["b"] != "00007" {
		t.Fatalf("ordinary use: %v %v", err, job)
	}
}

// Nested for expressions multiply: each is bounded, together they are
// charged to one budget per parse. Two nested fors over range(1000) took
// 4.7 s and 1.8 GB from a 135-byte file before.
func TestForExpressions_BoundedWork(t *testing.T) {
	nested := func(n string) []byte {
		return []byte("job \"x\" {\n  meta {\n    v = length(flatten([for a in range(" + n + "): [for b in range(" + n + "): b]]))\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n    }\n  }\n}\n")
	}
	_, _, err := Parse("bomb.nomad.hcl", nested("1000"), ParseOptions{Env: []string{}})
	if err == nil || !strings.Contains(err.Error(), "generate more than") {
		t.Fatalf("nested fors over range(1000): %v", err)
	}
	// Locals computed once do not escape the budget either.
	src := "locals {\n  l = range(600)\n}\njob \"x\" {\n  meta {\n    v = length(flatten([for a in local.l: [for b in local.l: b]]))\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n    }\n  }\n}\n"
	if _, _, err := Parse("bomb.nomad.hcl", []byte(src), ParseOptions{Env: []string{}}); err == nil || !strings.Contains(err.Error(), "generate more than") {
		t.Fatalf("nested fors over a local: %v", err)
	}
	job, _, err := Parse("ok.nomad.hcl", nested("100"), ParseOptions{Env: []string{}})
	if err != nil || job.Meta["v"] != "10000" {
		t.Fatalf("a modest nested for: %v", err)
	}
}

// bigListJob is a job file whose task args are a plain list literal of n
// elements: before literals counted, 200,000 of them took 17 s of CPU.
func bigListJob(n int) []byte {
	var b strings.Builder
	b.WriteString("job \"x\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n      config {\n        args = [")
	for range n {
		b.WriteString("\"a\",")
	}
	b.WriteString("]\n      }\n    }\n  }\n}\n")
	return []byte(b.String())
}

func TestLiterals_CountAgainstTheBudget(t *testing.T) {
	_, _, err := Parse("big.nomad.hcl", bigListJob(200_000), ParseOptions{Env: []string{}})
	if err == nil || !strings.Contains(err.Error(), "evaluation budget") || !strings.Contains(err.Error(), "100000") ||
		!strings.Contains(err.Error(), "big.nomad.hcl:6") {
		t.Fatalf("a 200,000-element list: err = %v, want a positioned error naming the evaluation budget", err)
	}
	// A variables file's literals are charged to the same budget.
	vars := "big = [" + strings.Repeat("1,", MaxGeneratedElements+1) + "]\n"
	src := "variable \"big\" {\n  type = list(number)\n}\njob \"x\" {\n  meta {\n    n = length(var.big)\n  }\n  group \"g\" {\n    task \"t\" {\n      driver = \"exec\"\n    }\n  }\n}\n"
	_, _, err = Parse("job.nomad.hcl", []byte(src), ParseOptions{Env: []string{}, VarContents: []VarContent{{Name: "vars.hcl", Content: []byte(vars)}}})
	if err == nil || !strings.Contains(err.Error(), "evaluation budget") {
		t.Fatalf("a 200,000-element list in a variables file: err = %v", err)
	}
	// Ordinary lists still parse.
	job, _, err := Parse("ok.nomad.hcl", bigListJob(1000), ParseOptions{Env: []string{}})
	if err != nil || len(job.TaskGroups[0].Tasks[0].Config["args"].([]any)) != 1000 {
		t.Fatalf("a 1000-element list: %v", err)
	}
}
