package taskrunner

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

// fuzzTar builds a small tar archive for the seeds.
func fuzzTar(entries ...*tar.Header) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(h.Name))
		}
		_ = tw.WriteHeader(h)
		if h.Typeflag == tar.TypeReg {
			_, _ = tw.Write([]byte(h.Name))
		}
	}
	_ = tw.Close()
	return buf.Bytes()
}

func fuzzZip(names ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, _ := zw.Create(n)
		_, _ = w.Write([]byte(n))
	}
	_ = zw.Close()
	return buf.Bytes()
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// FuzzUnpack feeds archives (the first byte picks tar, tar.gz, tar.bz2 or
// zip) to the artifact unpacker with a 1 MB budget. Whatever it accepts
// or refuses, nothing may land outside the destination and no link may
// point out of it.
func FuzzUnpack(f *testing.F) {
	tarSeed := fuzzTar(&tar.Header{Name: "d/", Typeflag: tar.TypeDir, Mode: 0o755},
		&tar.Header{Name: "d/f", Typeflag: tar.TypeReg, Mode: 0o644},
		&tar.Header{Name: "d/l", Typeflag: tar.TypeSymlink, Linkname: "f"},
		&tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Mode: 0o644},
		&tar.Header{Name: "out", Typeflag: tar.TypeSymlink, Linkname: "/etc"},
		&tar.Header{Name: "out/passwd", Typeflag: tar.TypeReg, Mode: 0o644})
	f.Add(append([]byte{0}, tarSeed...))
	f.Add(append([]byte{1}, gzipped(tarSeed)...))
	f.Add([]byte{2, 'B', 'Z', 'h', '9'})
	f.Add(append([]byte{3}, fuzzZip("a/b", "../../x", "c")...))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		root := t.TempDir()
		dest := filepath.Join(root, "dest")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		u := &unpacker{dest: dest, budget: 1 << 20}
		data := in[1:]
		switch in[0] % 4 {
		case 0:
			_ = u.tar(bytes.NewReader(data))
		case 1:
			if gz, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
				_ = u.tar(gz)
			}
		case 2:
			_ = u.tar(bzip2.NewReader(bytes.NewReader(data)))
		case 3:
			file := filepath.Join(root, "a.zip")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_ = u.zip(file)
			_ = os.Remove(file)
		}
		assertContained(t, root, dest)
	})
}

// assertContained fails if anything but dest is in root, or a link in
// dest points outside it.
func assertContained(t *testing.T, root, dest string) {
	t.Helper()
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "dest" {
			t.Fatalf("an archive wrote %q outside its destination", e.Name())
		}
	}
	_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		link, _ := os.Readlink(p)
		if filepath.IsAbs(link) || !within(dest, filepath.Join(filepath.Dir(p), link)) {
			t.Fatalf("link %s -> %s points outside the destination", p, link)
		}
		return nil
	})
}

// FuzzTemplate renders arbitrary templates with the task's function set
// and limits. A render must fail or succeed, never panic, never write
// outside the task dir or beyond the size cap.
func FuzzTemplate(f *testing.F) {
	for _, seed := range []string{
		`{{ env "NOMAD_TASK_NAME" }}`, `{{ range split "," "a,b" }}{{ . | toUpper }}{{ end }}`,
		`{{ file "local/x" }}`, `{{ replaceAll "a" "bb" "aaa" }}`, `{{ toJSON (split "," "a,b") }}`,
		`{{ define "x" }}{{ template "x" }}{{ end }}{{ template "x" }}`, `{{ range 10 }}{{ . }}{{ end }}`,
		"A=1\nB='two'\n", `{{ base64Decode "aGk=" }}{{ parseInt "12" }}`, `{{ key "x" }}`,
		`{{ "{\"a\":[1]}" | parseJSON | toYAML | indent 4 }}`, `{{ "a: b" | parseYAML | toTOML }}`,
		`{{ "aaa" | regexReplaceAll "a" "$0$0$0" }}`, `{{ range loop 3 }}{{ sprig_repeat 2 "x" }}{{ end }}`,
		`{{ sprig_until 5 }}{{ sprig_seq 1 2 9 }}{{ sprig_randAlpha 4 | len }}`, `{{ scratch.MapSet "m" "a/b" 1 }}{{ scratch.Get "m" | explodeMap | toJSON }}`,
		`{{ define "d" }}{{ . }}{{ end }}{{ executeTemplate "d" 1 }}`, `{{ add 1 2.5 | multiply 3 }}{{ 7 | modulo 0 }}`,
	} {
		f.Add(seed, "local/out", true)
	}
	f.Fuzz(func(t *testing.T, text, dest string, envvars bool) {
		root := t.TempDir()
		taskDir := filepath.Join(root, "task")
		if err := os.MkdirAll(filepath.Join(taskDir, "local"), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(taskDir, "local", "x"), []byte("X"), 0o644)
		tmpls := []*structs.Template{{EmbeddedTmpl: text, DestPath: dest, Envvars: envvars}}
		_, _ = renderTemplates(taskDir, tmpls, map[string]string{"NOMAD_TASK_NAME": "t"}, NewInterpolator(nil, nil, "global"), nil)
		entries, _ := os.ReadDir(root)
		if len(entries) != 1 {
			t.Fatalf("a template wrote outside the task dir: %v", entries)
		}
		_ = filepath.WalkDir(taskDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil && fi.Size() > MaxTemplateBytes {
					t.Fatalf("%s is %d bytes", p, fi.Size())
				}
			}
			return nil
		})
	})
}
