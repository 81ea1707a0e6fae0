package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// keyBody wraps a config body so the decoder (gohcl) sees only the keys
// Drover decodes. Every other key a Content call meets is judged by the
// key table, once: a refused or unknown key becomes an error at its
// file:line:col, a warned key a warning. Blocks are wrapped in turn, so
// nested keys are judged under their dotted path. PartialContent (a
// plugin's free-form config { } body) is passed through unjudged.
type keyBody struct {
	hcl.Body
	path string
	rep  *keyReport
}

// keyReport collects what the walk found in one file.
type keyReport struct {
	diags    hcl.Diagnostics
	warnings []string
}

func (b keyBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	content, remain, diags := b.Body.PartialContent(s)
	b.rep.leftovers(b.path, b.Body, remain, s)
	b.wrapBlocks(content)
	return content, diags
}

func (b keyBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	content, remain, diags := b.Body.PartialContent(s)
	b.wrapBlocks(content)
	return content, remain, diags
}

func (b keyBody) wrapBlocks(content *hcl.BodyContent) {
	if content == nil {
		return
	}
	for _, blk := range content.Blocks {
		blk.Body = keyBody{Body: blk.Body, path: joinPath(b.path, blk.Type), rep: b.rep}
	}
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// leftover is a key the schema did not take.
type leftover struct {
	name string
	rng  hcl.Range
}

// leftovers judges the keys of body that schema s does not name. Native
// syntax is read directly (its remain body still lists every key); JSON's
// remain body lists the leftovers as attributes.
func (rep *keyReport) leftovers(path string, body, remain hcl.Body, s *hcl.BodySchema) {
	var items []leftover
	if sb, ok := body.(*hclsyntax.Body); ok {
		known := map[string]bool{}
		for _, a := range s.Attributes {
			known[a.Name] = true
		}
		for _, bs := range s.Blocks {
			known[bs.Type] = true
		}
		for name, a := range sb.Attributes {
			if !known[name] {
				items = append(items, leftover{name, a.NameRange})
			}
		}
		for _, blk := range sb.Blocks {
			if !known[blk.Type] {
				items = append(items, leftover{blk.Type, blk.TypeRange})
			}
		}
	} else {
		attrs, _ := remain.JustAttributes()
		for name, a := range attrs {
			items = append(items, leftover{name, a.NameRange})
		}
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i].rng, items[j].rng
		if a.Start.Byte != b.Start.Byte {
			return a.Start.Byte < b.Start.Byte
		}
		return items[i].name < items[j].name
	})
	for _, it := range items {
		rep.judge(joinPath(path, it.name), it.rng)
	}
}

// judge reports one key the decoder does not take.
func (rep *keyReport) judge(path string, rng hcl.Range) {
	k, ok := LookupKey(path)
	switch {
	case ok && k.State == Warned:
		rep.warnings = append(rep.warnings, fmt.Sprintf("%s:%d:%d: %s is ignored: %s",
			rng.Filename, rng.Start.Line, rng.Start.Column, path, k.Why))
	case ok && k.State == Refused:
		rep.diags = append(rep.diags, &hcl.Diagnostic{Severity: hcl.DiagError,
			Summary: fmt.Sprintf("%s: Drover does not support this key", path),
			Detail:  k.Why, Subject: rng.Ptr()})
	case ok: // honoured in the table, yet the decoder has no field
		rep.diags = append(rep.diags, &hcl.Diagnostic{Severity: hcl.DiagError,
			Summary: fmt.Sprintf("%s: not expected here", path),
			Detail:  "written as a block where an attribute is expected, or the other way round", Subject: rng.Ptr()})
	default:
		parent, name := splitPath(path)
		detail := "it is not a Nomad agent configuration key either"
		if s := suggest(name, siblings(parent)); s != "" {
			detail += fmt.Sprintf("; did you mean %q?", s)
		}
		rep.diags = append(rep.diags, &hcl.Diagnostic{Severity: hcl.DiagError,
			Summary: fmt.Sprintf("%s: Drover does not support this key", path),
			Detail:  detail, Subject: rng.Ptr()})
	}
}

// suggest returns the candidate closest to name (edit distance at most
// 2, or a shared prefix), or "".
func suggest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		for _, c := range candidates {
			if len(name) >= 4 && strings.HasPrefix(c, name) {
				return c
			}
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
