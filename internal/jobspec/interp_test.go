package jobspec

import (
	"testing"
)

// TestRuntimeReferencesStayLiteral checks that client-side interpolations
// pass through untouched, alone, inside larger strings, next to job-file
// variables, and in heredocs.
func TestRuntimeReferencesStayLiteral(t *testing.T) {
	j, _, err := parseSrc(`variable "p" { default = "pre" }
job "i" {
  meta = {
    attr    = "${attr.kernel.name}"
    node    = "${node.unique.id}"
    meta    = "${meta.rack}"
    alloc   = "${NOMAD_ALLOC_ID}"
    port    = "${NOMAD_PORT_http}"
    env     = "${env["HOME"]}"
    mixed   = "${var.p}-${node.datacenter}-${attr.unique.network.ip-address}"
    bare    = attr.cpu.arch
    escaped = "$${literal}"
    heredoc = <<EOT
x=${NOMAD_TASK_DIR}/y
EOT
  }
}`, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "meta", j.Meta, map[string]string{
		"attr":    "${attr.kernel.name}",
		"node":    "${node.unique.id}",
		"meta":    "${meta.rack}",
		"alloc":   "${NOMAD_ALLOC_ID}",
		"port":    "${NOMAD_PORT_http}",
		"env":     `${env["HOME"]}`,
		"mixed":   "pre-${node.datacenter}-${attr.unique.network.ip-address}",
		"bare":    "${attr.cpu.arch}",
		"escaped": "${literal}",
		"heredoc": "x=${NOMAD_TASK_DIR}/y\n",
	})
}

func TestUnknownRootIsError(t *testing.T) {
	_, _, err := parseSrc(`job "i" {
  meta = { a = "${nope.x}" }
}`, ParseOptions{})
	if err == nil {
		t.Fatal("expected an error for an unknown root variable")
	}
	eq(t, "error", err.Error(), `test.nomad.hcl:2:19: Unknown variable: There is no variable named "nope".`)
}
