package fields

import (
	"fmt"
	"sort"
	"strings"
)

// ReferenceMarkdown is docs/reference/jobspec.md: every row of the table,
// grouped by api type, with where the type first appears in a job.
func ReferenceMarkdown() string {
	var b strings.Builder
	b.WriteString("# Job specification reference\n\n")
	b.WriteString("<!-- Generated from internal/jobspec/fields (the contract table); do not edit:\n")
	b.WriteString("     go test ./internal/jobspec/fields -run TestReferenceDocIsCurrent -update -->\n\n")
	b.WriteString("Every field of the official client's job (`github.com/hashicorp/nomad/api.Job`) is in\n")
	b.WriteString("one of three states. **honoured**: Drover acts on it (the test named proves it; some\n")
	b.WriteString("fields are honoured for the values listed only). **refused**: a job that sets it is\n")
	b.WriteString("refused, with a 400 naming the field at register, plan and validate, and with an\n")
	b.WriteString("error at file:line:col when the job comes from an HCL file. **warned**: accepted with\n")
	b.WriteString("a warning saying it is ignored; only for fields that cannot change where or how\n")
	b.WriteString("anything runs. A refused or warned block covers every field beneath it. A field set\n")
	b.WriteString("to its zero value (`sticky = false`) counts as unset.\n\n")
	b.WriteString("Services: Nomad's default provider is `consul`; Drover has no Consul integration and\n")
	b.WriteString("refuses a service whose provider is `consul` or unset, naming the fix\n")
	b.WriteString("(`provider = \"nomad\"`), rather than register it somewhere the job did not ask for.\n")
	byType := map[string][]Row{}
	for _, r := range Rows() {
		typ, _, _ := strings.Cut(r.Key, ".")
		byType[typ] = append(byType[typ], r)
	}
	where := map[string]string{}
	order := []string{}
	for _, ta := range Types() {
		where[ta.Type.Name()] = ta.Path
		order = append(order, ta.Type.Name())
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i] == "Job" })
	for _, typ := range order {
		rows := byType[typ]
		if len(rows) == 0 {
			continue
		}
		at := where[typ]
		if at == "" {
			at = "the job"
		}
		fmt.Fprintf(&b, "\n## `%s` (first at `%s`)\n\n| Field | State | Proof or reason |\n|---|---|---|\n", typ, at)
		for _, r := range rows {
			_, field, _ := strings.Cut(r.Key, ".")
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", field, stateText(r), cell(r))
		}
	}
	return b.String()
}

func stateText(r Row) string {
	if r.State == Honoured && r.Allow != nil {
		vals := make([]string, len(r.Allow))
		for i, v := range r.Allow {
			vals[i] = "`" + v + "`"
		}
		return "honoured for " + strings.Join(vals, ", ") + "; other values refused"
	}
	return r.State.String()
}

func cell(r Row) string {
	var parts []string
	if r.Proof != "" {
		parts = append(parts, "`"+r.Proof+"`")
	}
	if r.Message != "" {
		parts = append(parts, r.Message)
	}
	if r.Note != "" {
		parts = append(parts, "("+r.Note+")")
	}
	return strings.ReplaceAll(strings.Join(parts, "; "), "|", "\\|")
}
