package taskrunner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// renderString renders one embedded template with env K=v and returns
// its output or error.
func renderString(t *testing.T, tmpl *structs.Template) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if tmpl.DestPath == "" {
		tmpl.DestPath = "out"
	}
	r, err := renderTemplate(dir, tmpl, map[string]string{"K": "v", "EMPTY": ""}, NewInterpolator(nil, nil, ""), nil)
	if err != nil {
		return "", err
	}
	return string(r.content), nil
}

// consul-template's helper, maths and sprig functions, with the argument
// orders its documentation gives.
func TestTemplateFuncs_ConsulTemplateSet(t *testing.T) {
	old := templateNow
	templateNow = func() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)) }
	defer func() { templateNow = old }()
	cases := []struct{ tmpl, want, wantErr string }{
		{`{{ timestamp }}`, "2030-01-02T02:04:05Z", ""},
		{`{{ timestamp "2006-01-02" }} {{ timestamp "unix" }}`, "2030-01-02 1893549845", ""},
		{`{{ with $d := "{\"a\":{\"b\":[1,2]}}" | parseJSON }}{{ index $d.a.b 1 }}{{ end }}`, "2", ""},
		{`{{ "" | parseJSON | len }}`, "0", ""},
		{`{{ "a: [x, y]" | parseYAML | toJSON }}`, `{"a":["x","y"]}`, ""},
		{`{{ "{\"b\":1,\"a\":\"<\"}" | parseJSON | toJSONPretty }}`, "{\n  \"a\": \"\\u003c\",\n  \"b\": 1\n}", ""},
		{`{{ "{\"a\":\"<\"}" | parseJSON | toUnescapedJSON }}`, `{"a":"<"}`, ""},
		{`{{ "{\"a\":{\"b\":\"c\"}}" | parseJSON | toYAML }}`, "a:\n  b: c", ""},
		{`{{ "{\"a\":\"x\"}" | parseJSON | toTOML }}`, "a = \"x\"\n", ""},
		{`{{ "a\nb" | indent 2 }}`, "  a\n  b", ""},
		{`{{ "foo.bar" | regexReplaceAll "foo([.a-z]+)" "$1" }}`, ".bar", ""},
		{`{{ "foo.bar" | regexMatch "^f.o" }} {{ "x" | regexMatch "^f" }}`, "true false", ""},
		{`{{ "x" | regexMatch "(" }}`, "", "regexMatch"},
		{`{{ "a b" | split " " | join "," }}|{{ "  x \n" | trimSpace }}|{{ "xxhixx" | trim "x" }}|{{ "pre-x" | trimPrefix "pre-" }}|{{ "x.go" | trimSuffix ".go" }}`, "a,b|x|hi|x|x", ""},
		{`{{ range loop 3 }}{{ . }}{{ end }} {{ range $i := loop 5 8 }}{{ $i }}{{ end }}`, "012 567", ""},
		{`{{ loop 0 200000 }}`, "", "more than"},
		{`{{ add 1 2 }} {{ 5 | subtract 2 }} {{ 2 | multiply 3 }} {{ 10 | divide 2 }} {{ 5 | modulo 2 }} {{ minimum 2 5 }} {{ maximum 2 5 }}`, "3 3 6 5 1 2 5", ""},
		{`{{ add 1.5 2 }} {{ 1 | divide 0 }}`, "", "division by zero"},
		{`{{ add 1.5 2 }}`, "3.5", ""},
		{`{{ "true" | parseBool }} {{ "1.5" | parseFloat }} {{ "7" | parseInt }} {{ "8" | parseUint }}`, "true 1.5 7 8", ""},
		{`{{ "hello" | base64URLEncode }} {{ "aGVsbG8=" | base64URLDecode }}`, "aGVsbG8= hello", ""},
		{`{{ "bladibla" | sha256Hex }}`, "54cf4c66bcabb5c20e25331c01dd600b73369e97a947861bd8d3a0e0b8b3d70b", ""},
		{`{{ "hello" | md5sum }}`, "5d41402abc4b2a76b9719d911017c592", ""},
		{`{{ hmacSHA256Hex "key" "The quick brown fox jumps over the lazy dog" }}`, "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8", ""},
		{`{{ $l := "a,b,c" | split "," }}{{ containsAll ("a,b" | split ",") $l }} {{ containsAll ("a,z" | split ",") $l }} {{ containsAny ("z,c" | split ",") $l }} {{ containsNone ("z,y" | split ",") $l }} {{ containsNotAll ("a,z" | split ",") $l }}`, "true false true true true", ""},
		{`{{ in ("a,b" | split ",") "b" }}`, "true", ""},
		{`{{ $m := "a:1,b:2" | splitToMap "," ":" }}{{ $m.b }}`, "2", ""},
		{`{{ "hello big world" | toTitle }}`, "Hello Big World", ""},
		{`{{ mustEnv "K" }} {{ envOrDefault "EMPTY" "d" }} {{ envOrDefault "K" "d" }}`, "v d v", ""},
		{`{{ mustEnv "NOPE" }}`, "", "NOPE is not set"},
		{`{{ scratch.Set "a" "1" }}{{ scratch.SetX "a" "2" }}{{ scratch.Get "a" }} {{ scratch.Key "a" }} {{ scratch.MapSet "m" "y" 2 }}{{ scratch.MapSet "m" "x" 1 }}{{ scratch.MapValues "m" }}`, "1 true [1 2]", ""},
		{`{{ scratch.MapSet "v" "a/b" "1" }}{{ scratch.MapSet "v" "a/c" "2" }}{{ scratch.Get "v" | explodeMap | toJSON }}`, `{"a":{"b":"1","c":"2"}}`, ""},
		{`{{ $a := "{\"x\":1,\"y\":{\"p\":1}}" | parseJSON }}{{ $b := "{\"x\":2,\"y\":{\"q\":2}}" | parseJSON }}{{ mergeMap $a $b | toJSON }} {{ mergeMapWithOverride $a $b | toJSON }}`, `{"x":2,"y":{"p":1,"q":2}} {"x":1,"y":{"p":1,"q":2}}`, ""},
		{`{{ define "x" }}[{{ . }}]{{ end }}{{ executeTemplate "x" 42 }}{{ executeTemplate "x" }}`, "[42][<no value>]", ""},
		{`{{ sockaddr "GetAllInterfaces | include \"flags\" \"loopback\" | include \"type\" \"IPv4\" | attr \"address\"" }}`, "127.0.0.1", ""},
		{`{{ sprig_upper "x" }} {{ "a" | sprig_repeat 3 }} {{ sprig_env "K" }} {{ sprig_expandenv "$K!" }} {{ sprig_until 3 }} {{ sprig_seq 3 }}`, "X aaa v v! [0 1 2] 1 2 3", ""},
		{`{{ "a" | sprig_repeat 100000000 }}`, "", "larger than"},
		{`{{ sprig_until 1000000000 }}`, "", "more than"},
		{`{{ sprig_seq 1 1000000000 }}`, "", "more than"},
		{`{{ sprig_randAlphaNum 70000 }}`, "", "out of range"},
		{`{{ sprig_randAlphaNum 5 | len }} {{ sprig_nindent 2 "x" }}`, "5 \n  x", ""},
		{`{{ plugin "x" }}`, "", "function_denylist"},
		{`{{ writeToFile "/etc/x" "" "" "0644" "y" }}`, "", "function_denylist"},
		{`{{ byKey "x" }}`, "", "Consul"},
	}
	for _, tc := range cases {
		t.Run(tc.tmpl, func(t *testing.T) {
			got, err := renderString(t, &structs.Template{EmbeddedTmpl: tc.tmpl})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %q, err = %v; want error %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// byTag groups the services nomadService returns by tag.
func TestTemplateFuncs_ByTag(t *testing.T) {
	got := byTag([]*TemplateService{{ID: "a", Tags: []string{"x", "y"}}, {ID: "b", Tags: []string{"y"}}})
	if len(got["x"]) != 1 || len(got["y"]) != 2 || got["y"][1].ID != "b" {
		t.Fatalf("byTag = %v", got)
	}
}

// left_delimiter and right_delimiter change what the parser looks for:
// the default braces are then plain text.
func TestTemplateDelimiters(t *testing.T) {
	got, err := renderString(t, &structs.Template{EmbeddedTmpl: `job=[[ env "K" ]] raw={{ x }}`, LeftDelim: "[[", RightDelim: "]]"})
	if err != nil || got != "job=v raw={{ x }}" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// uid and gid own the rendered file; an owner the client cannot give
// fails the render with the ids in the message.
func TestTemplateOwner(t *testing.T) {
	dir := t.TempDir()
	uid, gid := 4321, 4322
	r, err := renderTemplate(dir, &structs.Template{EmbeddedTmpl: "x", DestPath: "out", Uid: &uid, Gid: &gid}, nil, NewInterpolator(nil, nil, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = r.write()
	if os.Geteuid() != 0 {
		if err == nil || !strings.Contains(err.Error(), "4321:4322") {
			t.Fatalf("err = %v, want the owner named", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !fileMatches(filepath.Join(dir, "out"), 0o644, uid, gid) {
		t.Fatal("owner not set")
	}
	if r.changed() {
		t.Fatal("an identical file reads as changed")
	}
	if !fileMatches(filepath.Join(dir, "out"), 0o644, -1, -1) || fileMatches(filepath.Join(dir, "out"), 0o644, 1, -1) {
		t.Fatal("fileMatches ignores the owner")
	}
}
