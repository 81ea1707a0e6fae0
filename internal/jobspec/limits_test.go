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
