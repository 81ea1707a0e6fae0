package taskrunner

import (
	"strings"

	"github.com/drover-project/drover/internal/structs"
)

// Interpolator replaces ${NOMAD_*} (and any other env var of the task),
// ${attr.*}, ${meta.*} and ${node.*} in strings. Unknown references are
// left as written, as Nomad does, so a config that means a literal "${x}"
// for the task's own shell still works.
type Interpolator struct {
	env    map[string]string
	node   *structs.Node
	region string
}

// NewInterpolator builds an interpolator over env and the node.
func NewInterpolator(env map[string]string, node *structs.Node, region string) *Interpolator {
	return &Interpolator{env: env, node: node, region: region}
}

// String interpolates one string.
func (ip *Interpolator) String(s string) string {
	var b strings.Builder
	for {
		start := strings.Index(s, "${")
		if start < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.IndexByte(s[start:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		end += start
		b.WriteString(s[:start])
		name := strings.TrimSpace(s[start+2 : end])
		if v, ok := ip.lookup(name); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[start : end+1])
		}
		s = s[end+1:]
	}
}

func (ip *Interpolator) lookup(name string) (string, bool) {
	if k, ok := strings.CutPrefix(name, "env."); ok {
		v, ok := ip.env[k]
		return v, ok
	}
	if v, ok := ip.env[name]; ok {
		return v, true
	}
	n := ip.node
	if n == nil {
		return "", false
	}
	if name == "node.region" {
		return ip.region, true // the agent's region: not a node field
	}
	return n.LookupVariable(name)
}

// Value interpolates every string inside v (maps, lists, nested blocks)
// and returns a copy; other values are returned as they are. Map keys are
// left alone: they name config fields.
func (ip *Interpolator) Value(v any) any {
	switch x := v.(type) {
	case string:
		return ip.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = ip.Value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ip.Value(e)
		}
		return out
	case []map[string]any:
		out := make([]map[string]any, len(x))
		for i, e := range x {
			out[i] = ip.Value(e).(map[string]any)
		}
		return out
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = ip.String(e)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = ip.String(e)
		}
		return out
	}
	return v
}

// Config interpolates a task's config block.
func (ip *Interpolator) Config(cfg map[string]any) map[string]any {
	if cfg == nil {
		return map[string]any{}
	}
	return ip.Value(cfg).(map[string]any)
}
