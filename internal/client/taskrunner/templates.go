package taskrunner

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"text/template"

	"github.com/drover-project/drover/internal/structs"
)

// DefaultTemplatePerms is a rendered file's mode without `perms`.
const DefaultTemplatePerms = "0644"

// Templates render before the task starts, with Go's text/template,
// consul-template's delimiters and a subset of its functions; the Nomad
// functions (nomadVar, nomadService, ...) read through TemplateData, and
// a watcher (template_watch.go) renders again when what they read changes.

// renderTemplates renders each template into taskDir and returns the
// variables of those with env = true (later templates win).
func renderTemplates(taskDir string, tmpls []*structs.Template, env map[string]string, ip *Interpolator, rd *dataReader) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range tmpls {
		r, err := renderTemplate(taskDir, t, env, ip, rd)
		if err == nil {
			err = r.write()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", templateName(t), err)
		}
		maps.Copy(out, r.env)
	}
	return out, nil
}

// templateName names a template in errors the way a job author knows it.
func templateName(t *structs.Template) string {
	if t.DestPath != "" {
		return fmt.Sprintf("template %q", t.DestPath)
	}
	return fmt.Sprintf("template from %q", t.SourcePath)
}

// renderedTemplate is one template's output, not yet written.
type renderedTemplate struct {
	tmpl    *structs.Template
	dest    string
	content []byte
	perm    fs.FileMode
	// uid and gid own the file (-1: unchanged, the client's user).
	uid, gid int
	env      map[string]string // the variables of an env = true template
}

func (r *renderedTemplate) write() error {
	return writeFileAtomicOwned(r.dest, r.content, r.perm, r.uid, r.gid)
}

// changed reports whether the file on disk differs from the output (its
// content, mode or owner).
func (r *renderedTemplate) changed() bool {
	old, err := os.ReadFile(r.dest)
	if err != nil || !bytes.Equal(old, r.content) {
		return true
	}
	return !fileMatches(r.dest, r.perm, r.uid, r.gid)
}

// ownerID is a template's uid or gid, -1 when unset.
func ownerID(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// executeTemplate is consul-template's executeTemplate: it renders a
// template defined in the same file ({{ define "name" }}) with an
// optional data argument, and returns the text; its output counts
// against the render's cap.
func executeTemplate(root *template.Template, cw *capWriter) func(name string, data ...any) (string, error) {
	return func(name string, data ...any) (string, error) {
		var d any
		switch len(data) {
		case 0:
		case 1:
			d = data[0]
		default:
			return "", errors.New("executeTemplate: want a name and at most one data argument")
		}
		var buf bytes.Buffer
		inner := &capWriter{w: &buf, left: cw.left, limit: cw.limit}
		if err := root.ExecuteTemplate(inner, name, d); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
}

func renderTemplate(taskDir string, t *structs.Template, env map[string]string, ip *Interpolator, rd *dataReader) (*renderedTemplate, error) {
	if t.DestPath == "" {
		return nil, errors.New("destination is required")
	}
	dest, err := sandboxJoin(taskDir, ip.String(t.DestPath))
	if err != nil {
		return nil, fmt.Errorf("destination: %w", err)
	}
	perm, err := parsePerms(t.Perms)
	if err != nil {
		return nil, err
	}
	text, err := templateText(taskDir, t, ip)
	if err != nil {
		return nil, err
	}
	funcs := templateFuncs(taskDir, env, rd)
	tmpl := template.New(filepath.Base(dest)).Delims(t.LeftDelim, t.RightDelim).Funcs(funcs)
	if t.ErrMissingKey {
		tmpl = tmpl.Option("missingkey=error")
	}
	if tmpl, err = tmpl.Parse(text); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if err := countSteps(tmpl, funcs); err != nil {
		return nil, err
	}
	out := newCapWriter(&bytes.Buffer{})
	tmpl.Funcs(template.FuncMap{"executeTemplate": executeTemplate(tmpl, out)})
	buf := out.w.(*bytes.Buffer)
	if err := tmpl.Execute(out, nil); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	r := &renderedTemplate{tmpl: t, dest: dest, content: buf.Bytes(), perm: perm, uid: ownerID(t.Uid), gid: ownerID(t.Gid)}
	if t.Envvars {
		if r.env, err = parseEnvFile(r.content); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// templateText is the embedded template, else the file at the source
// path inside the task dir (an artifact may have fetched it).
func templateText(taskDir string, t *structs.Template, ip *Interpolator) (string, error) {
	if t.EmbeddedTmpl != "" {
		return t.EmbeddedTmpl, nil
	}
	if t.SourcePath == "" {
		return "", errors.New("needs data or a source")
	}
	p, err := sandboxRead(taskDir, ip.String(t.SourcePath))
	if err != nil {
		return "", fmt.Errorf("source: %w", err)
	}
	return readCapped(p)
}

// parsePerms reads an octal mode such as "0600".
func parsePerms(s string) (fs.FileMode, error) {
	if s == "" {
		s = DefaultTemplatePerms
	}
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil || n > 0o777 {
		return 0, fmt.Errorf("invalid perms %q: want an octal mode such as \"0644\"", s)
	}
	return fs.FileMode(n), nil
}

// parseEnvFile reads KEY=VALUE lines (blank lines and # comments are
// skipped, "export " and quotes around values are allowed), as a template
// with env = true is read.
func parseEnvFile(b []byte) (map[string]string, error) {
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, err := parseEnvLine(strings.TrimPrefix(line, "export "))
		if err != nil {
			return nil, fmt.Errorf("env file line %d: %w", n, err)
		}
		vars[k] = v
	}
	return vars, sc.Err()
}

func parseEnvLine(line string) (string, string, error) {
	k, v, ok := strings.Cut(line, "=")
	k = strings.TrimSpace(k)
	if !ok || !validEnvKey(k) {
		return "", "", fmt.Errorf("want KEY=VALUE, got %q", line)
	}
	v = strings.TrimSpace(v)
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		u, err := strconv.Unquote(v)
		if err != nil {
			return "", "", fmt.Errorf("bad quoted value for %s: %w", k, err)
		}
		return k, u, nil
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return k, v[1 : len(v)-1], nil
	case strings.HasPrefix(v, `"`) || strings.HasPrefix(v, `'`):
		return "", "", fmt.Errorf("unterminated quote in the value of %s", k)
	}
	return k, v, nil
}

func validEnvKey(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	return envKey(k) == k
}

// templateFuncs is the function set templates get. Functions that need
// Consul, Vault or the Nomad API exist only to fail with a message saying
// so, when a template actually calls them.
func templateFuncs(taskDir string, env map[string]string, rd *dataReader) template.FuncMap {
	fm := template.FuncMap{
		"env":          func(k string) string { return env[k] },
		"file":         func(p string) (string, error) { return readTaskFile(taskDir, p) },
		"toUpper":      strings.ToUpper,
		"toLower":      strings.ToLower,
		"trimSpace":    strings.TrimSpace,
		"split":        func(sep, s string) ([]string, error) { return splitCapped(sep, s) },
		"join":         joinCapped,
		"replaceAll":   replaceAllCapped,
		"contains":     contains,
		"hasPrefix":    func(prefix, s string) bool { return strings.HasPrefix(s, prefix) },
		"hasSuffix":    func(suffix, s string) bool { return strings.HasSuffix(s, suffix) },
		"parseInt":     func(s string) (int64, error) { return strconv.ParseInt(strings.TrimSpace(s), 10, 64) },
		"parseBool":    func(s string) (bool, error) { return strconv.ParseBool(strings.TrimSpace(s)) },
		"toJSON":       toJSON,
		"base64Encode": func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
		"base64Decode": base64Decode,
		// Replaced per render once the template is parsed (it needs it).
		"executeTemplate": func(string, ...any) (string, error) { return "", nil },
		tickFunc:          stepCounter(),
	}
	maps.Copy(fm, ctFuncs(env))
	maps.Copy(fm, sprigFuncs(env))
	for name, needs := range unavailableFuncs {
		fm[name] = unavailable(name, needs)
	}
	if rd != nil {
		maps.Copy(fm, rd.nomadFuncs())
	}
	return fm
}

// unavailableFuncs are consul-template's functions drover cannot serve,
// with what they need.
var unavailableFuncs = map[string]string{
	"key": "Consul", "keyExists": "Consul", "keyOrDefault": "Consul", "ls": "Consul", "safeLs": "Consul",
	"tree": "Consul", "safeTree": "Consul", "service": "Consul", "services": "Consul", "connect": "Consul",
	"caLeaf": "Consul", "caRoots": "Consul", "datacenters": "Consul", "node": "Consul", "nodes": "Consul",
	"secret": "Vault", "secrets": "Vault", "pkiCert": "Vault",
	"nomadVar": "Nomad variables", "nomadVarList": "Nomad variables", "nomadVarListSafe": "Nomad variables",
	"nomadVarExists": "Nomad variables", "nomadService": "Nomad services", "nomadServices": "Nomad services",
	"byKey": "Consul key/value data", "byMeta": "Consul service metadata", "explode": "Consul key/value data",
	"plugin":      "running a plugin, which Nomad's default function_denylist forbids",
	"writeToFile": "writing outside the template's destination, which Nomad's default function_denylist forbids",
	"spew_dump":   "go-spew, which Drover does not ship", "spew_sdump": "go-spew, which Drover does not ship",
	"spew_printf": "go-spew, which Drover does not ship", "spew_sprintf": "go-spew, which Drover does not ship",
	"spew_printfln": "go-spew, which Drover does not ship",
}

func unavailable(name, needs string) func(...any) (any, error) {
	return func(...any) (any, error) {
		return nil, fmt.Errorf("template function %q needs %s, which is not available to this template", name, needs)
	}
}

// readTaskFile is the `file` function: a file inside the task dir.
func readTaskFile(taskDir, p string) (string, error) {
	full, err := sandboxRead(taskDir, p)
	if err != nil {
		return "", err
	}
	return readCapped(full)
}

// contains reports whether s (a string) contains needle, or s (a list)
// holds it; the subject comes last so it can be piped in.
func contains(needle any, s any) (bool, error) {
	if str, ok := s.(string); ok {
		n, ok := needle.(string)
		if !ok {
			return false, fmt.Errorf("contains: want a string to look for in a string, got %T", needle)
		}
		return strings.Contains(str, n), nil
	}
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return false, fmt.Errorf("contains: want a string or a list, got %T", s)
	}
	for i := range v.Len() {
		if reflect.DeepEqual(v.Index(i).Interface(), needle) {
			return true, nil
		}
	}
	return false, nil
}

func toJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func base64Decode(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	return string(b), err
}
