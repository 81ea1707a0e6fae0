package config

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// hcl1MapBlocks are the map keys Nomad's HCL1 files write as blocks
// (`meta { rack = "r1" }`) where HCL2 wants a map attribute
// (`meta = { ... }`).
var hcl1MapBlocks = map[string]bool{"client.meta": true, "client.options": true, "client.chroot_env": true,
	"http_api_response_headers": true}

// rewriteHCL1 turns the HCL1 forms Nomad's agent files still use into
// HCL2, keeping every byte offset (so file:line:col stays right):
//   - a quoted key at the start of a line, `"region" = "x"`, loses its
//     quotes (` region  = "x"`) when it is a plain identifier;
//   - map keys written as blocks (client { meta { ... } }, options,
//     chroot_env, http_api_response_headers) become map attributes
//     (`meta={`), in which quoted keys such as "driver.raw_exec.enable"
//     are valid HCL2.
//
// Source the lexer cannot read is returned unchanged for the parser to
// report.
func rewriteHCL1(src []byte, filename string) []byte {
	toks, diags := hclsyntax.LexConfig(src, filename, hcl.Pos{Line: 1, Column: 1})
	if diags.HasErrors() {
		return src
	}
	out := append([]byte(nil), src...)
	var stack []string // block types enclosing the current token
	lineStart, firstIdent := true, ""
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.Type {
		case hclsyntax.TokenNewline, hclsyntax.TokenComment:
			lineStart, firstIdent = true, ""
			continue
		case hclsyntax.TokenOBrace:
			stack = append(stack, firstIdent)
			lineStart, firstIdent = true, ""
			continue
		case hclsyntax.TokenCBrace:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if lineStart && t.Type == hclsyntax.TokenOQuote && i+3 < len(toks) &&
			toks[i+1].Type == hclsyntax.TokenQuotedLit && toks[i+2].Type == hclsyntax.TokenCQuote &&
			toks[i+3].Type == hclsyntax.TokenEqual && hclsyntax.ValidIdentifier(string(toks[i+1].Bytes)) {
			start, end := t.Range.Start.Byte, toks[i+2].Range.End.Byte
			out[start] = ' '
			copy(out[start+1:], toks[i+1].Bytes)
			out[end-1] = ' '
			i += 2
		}
		if lineStart && t.Type == hclsyntax.TokenIdent && i+1 < len(toks) && toks[i+1].Type == hclsyntax.TokenOBrace &&
			hcl1MapBlocks[joinPath(strings.Join(stack, "."), string(t.Bytes))] {
			gap := out[t.Range.End.Byte:toks[i+1].Range.Start.Byte]
			if len(gap) > 0 && (gap[0] == ' ' || gap[0] == '\t') {
				gap[0] = '=' // the brace now opens an object, not a block
			}
		}
		if lineStart && t.Type == hclsyntax.TokenIdent {
			firstIdent = string(t.Bytes)
		}
		lineStart = false
	}
	return out
}
