package allocdir

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Snapshot then Unpack carries alloc/data and the tasks' local/ (files,
// dirs, modes, an in-tree symlink) and nothing else (secrets, tmp, logs,
// a task not named).
func TestSnapshot_RoundTripCarriesOnlyTheMigratableDirs(t *testing.T) {
	src := New(t.TempDir(), "prev")
	if err := src.Build(); err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"web", "other"} {
		if _, err := src.BuildTask(task); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, body string, mode os.FileMode) {
		p := filepath.Join(src.Root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("alloc/data/db/file", "data", 0o640)
	write("web/local/conf", "conf", 0o755)
	write("web/secrets/token", "secret", 0o600)
	write("alloc/tmp/scratch", "tmp", 0o644)
	write("other/local/x", "x", 0o644)
	if err := os.Symlink("db/file", filepath.Join(src.Root, "alloc/data/link")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := src.Snapshot(&buf, []string{"web"}); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := Unpack(bytes.NewReader(buf.Bytes()), dest, []string{"web"}, 0); err != nil {
		t.Fatal(err)
	}
	var got []string
	_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			got = append(got, rel)
		}
		return nil
	})
	want := "alloc/data/db/file alloc/data/link web/local/conf"
	if strings.Join(got, " ") != want {
		t.Fatalf("unpacked %v, want %s", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dest, "alloc/data/link")); string(b) != "data" {
		t.Fatalf("link reads %q", b)
	}
	if st, _ := os.Stat(filepath.Join(dest, "web/local/conf")); st.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", st.Mode())
	}
	// A limit below the data's size refuses the stream.
	if err := Unpack(bytes.NewReader(buf.Bytes()), t.TempDir(), []string{"web"}, 5); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("limit 5: %v", err)
	}
}

type entry struct {
	name, link string
	typ        byte
	body       string
}

func tarOf(t testing.TB, entries ...entry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: 0o644, Size: int64(len(e.body))}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Unpack refuses every entry that would land outside alloc/data and the
// tasks' local/, or a link that leads out, and writes nothing outside
// dest.
func TestUnpack_RefusesEscapes(t *testing.T) {
	cases := map[string][]entry{
		"dot-dot":              {{name: "alloc/data/../../evil", typ: tar.TypeReg, body: "x"}},
		"unclean":              {{name: "alloc/data/./x", typ: tar.TypeReg, body: "x"}},
		"absolute":             {{name: "/etc/evil", typ: tar.TypeReg, body: "x"}},
		"secrets":              {{name: "web/secrets/token", typ: tar.TypeReg, body: "x"}},
		"unknown task":         {{name: "nope/local/x", typ: tar.TypeReg, body: "x"}},
		"alloc logs":           {{name: "alloc/logs/x", typ: tar.TypeReg, body: "x"}},
		"absolute link":        {{name: "alloc/data/l", typ: tar.TypeSymlink, link: "/etc"}},
		"climbing link":        {{name: "alloc/data/l", typ: tar.TypeSymlink, link: "../../.."}},
		"climbing link inside": {{name: "alloc/data/l", typ: tar.TypeSymlink, link: "a/../../x"}},
		"backslash":            {{name: `alloc/data/..\..\x`, typ: tar.TypeReg, body: "x"}},
	}
	for name, entries := range cases {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			dest := filepath.Join(parent, "dest")
			if err := os.Mkdir(dest, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := Unpack(bytes.NewReader(tarOf(t, entries...)), dest, []string{"web"}, 0); err == nil {
				t.Fatal("accepted")
			}
			assertOnlyDest(t, parent)
		})
	}
}

// assertOnlyDest fails when parent holds anything but dest.
func assertOnlyDest(t testing.TB, parent string) {
	t.Helper()
	ents, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "dest" {
			t.Fatalf("wrote %s outside dest", e.Name())
		}
	}
}

// FuzzUnpack feeds arbitrary streams (seeded with escapes through links,
// dot-dots and repeated names) to Unpack: it never panics and never
// writes outside dest, and every symlink it leaves stays inside dest.
func FuzzUnpack(f *testing.F) {
	f.Add(tarOf(f, entry{name: "alloc/data/l", typ: tar.TypeSymlink, link: "."}, entry{name: "alloc/data/l/../../../x", typ: tar.TypeReg, body: "x"}))
	f.Add(tarOf(f, entry{name: "alloc/data/d", typ: tar.TypeSymlink, link: "sub"}, entry{name: "alloc/data/d/f", typ: tar.TypeReg, body: "x"}))
	f.Add(tarOf(f, entry{name: "alloc/data/f", typ: tar.TypeReg, body: "a"}, entry{name: "alloc/data/f", typ: tar.TypeSymlink, link: "g"}, entry{name: "alloc/data/f", typ: tar.TypeReg, body: "b"}))
	f.Add(tarOf(f, entry{name: "web/local/", typ: tar.TypeDir}, entry{name: "web/local/a", typ: tar.TypeReg, body: "a"}))
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		dest := filepath.Join(parent, "dest")
		if err := os.Mkdir(dest, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = Unpack(bytes.NewReader(data), dest, []string{"web"}, 1<<20)
		assertOnlyDest(t, parent)
		dest, _ = filepath.EvalSymlinks(dest)
		_ = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil // dangling or looping: leads nowhere
			}
			if rel, err := filepath.Rel(dest, target); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				t.Fatalf("link %s leads out of dest to %s", p, target)
			}
			return nil
		})
	})
}
