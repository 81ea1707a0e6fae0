package taskrunner

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// entry is one archive member: a file, a directory (name ending in "/")
// or, with link set, a symlink.
type entry struct {
	name, body, link string
	mode             int64
}

func tarGz(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		switch {
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		case strings.HasSuffix(e.name, "/"):
			h.Typeflag = tar.TypeDir
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha256Hex(b string) string { s := sha256.Sum256([]byte(b)); return hex.EncodeToString(s[:]) }
func md5Hex(b string) string    { s := md5.Sum([]byte(b)); return hex.EncodeToString(s[:]) }

// artifactServer serves files by path and records query strings.
func artifactServer(t *testing.T, files map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if want := r.URL.Query().Get("must"); want != "" && r.URL.Query().Get("token") != want {
			http.Error(w, "no token", http.StatusForbidden)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestArtifacts(t *testing.T) {
	const body = "binary-bits"
	srv := artifactServer(t, map[string][]byte{
		"/app.bin":       []byte(body),
		"/linux/app.bin": []byte(body),
		"/secret.bin":    []byte(body),
		"/bundle.tar.gz": tarGz(t, entry{name: "bin/"}, entry{name: "bin/run.sh", body: "#!/bin/sh\n", mode: 0o755},
			entry{name: "README", body: "hi"}, entry{name: "bin/latest", link: "run.sh"}),
		"/bundle.zip":  zipOf(t, entry{name: "conf/app.conf", body: "port=1"}, entry{name: "top.txt", body: "top"}),
		"/slip.zip":    zipOf(t, entry{name: "ok.txt", body: "ok"}, entry{name: "../../evil.txt", body: "pwned"}),
		"/slip.tar.gz": tarGz(t, entry{name: "../evil.txt", body: "pwned"}),
		"/link.tar.gz": tarGz(t, entry{name: "etc", link: "../../../../etc"}),
		"/through.tgz": tarGz(t, entry{name: "d", link: "."}, entry{name: "d/x", body: "x"}),
		"/raw.tar.gz":  tarGz(t, entry{name: "f", body: "f"}),
	})
	localDir := t.TempDir()
	localFile := filepath.Join(localDir, "seed.txt")
	if err := os.WriteFile(localFile, []byte("seed"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(localDir, "tree", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(localDir, "tree", "sub", "leaf"), []byte("leaf"), 0o644); err != nil {
		t.Fatal(err)
	}

	type check func(t *testing.T, td drivers.TaskDir)
	fileIs := func(rel, want string) check {
		return func(t *testing.T, td drivers.TaskDir) {
			t.Helper()
			if got := readFile(t, filepath.Join(td.Dir, rel)); got != want {
				t.Fatalf("%s = %q, want %q", rel, got, want)
			}
		}
	}
	cases := []struct {
		name    string
		art     structs.TaskArtifact
		wantErr string
		checks  []check
	}{
		{name: "http file into local/", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin"},
			checks: []check{fileIs("local/app.bin", body)}},
		{name: "sha256 checksum ok", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin",
			GetterOptions: map[string]string{"checksum": "sha256:" + sha256Hex(body)}},
			checks: []check{fileIs("local/app.bin", body)}},
		{name: "md5 checksum in the query", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin?checksum=md5:" + md5Hex(body)},
			checks: []check{fileIs("local/app.bin", body)}},
		{name: "checksum mismatch", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin",
			GetterOptions: map[string]string{"checksum": "sha256:" + sha256Hex("other")}},
			wantErr: "checksum mismatch"},
		{name: "bad checksum", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin",
			GetterOptions: map[string]string{"checksum": "crc32:00"}}, wantErr: "unsupported checksum"},
		{name: "other options reach the server", art: structs.TaskArtifact{GetterSource: srv.URL + "/secret.bin?must=t0k",
			GetterOptions: map[string]string{"token": "t0k"}}, checks: []check{fileIs("local/secret.bin", body)}},
		{name: "interpolated source and destination", art: structs.TaskArtifact{GetterSource: srv.URL + "/${attr.kernel.name}/app.bin",
			RelativeDest: "local/${NOMAD_TASK_NAME}-${meta.rack}"}, checks: []check{fileIs("local/web-r1/app.bin", body)}},
		{name: "mode file", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin", GetterMode: "file", RelativeDest: "local/bin/tool"},
			checks: []check{fileIs("local/bin/tool", body)}},
		{name: "tar.gz unpacked", art: structs.TaskArtifact{GetterSource: srv.URL + "/bundle.tar.gz", RelativeDest: "local/app"},
			checks: []check{fileIs("local/app/README", "hi"), fileIs("local/app/bin/run.sh", "#!/bin/sh\n"),
				fileIs("local/app/bin/latest", "#!/bin/sh\n"), modeIs("local/app/bin/run.sh", 0o755)}},
		{name: "zip unpacked", art: structs.TaskArtifact{GetterSource: srv.URL + "/bundle.zip"},
			checks: []check{fileIs("local/conf/app.conf", "port=1"), fileIs("local/top.txt", "top")}},
		{name: "archive = false", art: structs.TaskArtifact{GetterSource: srv.URL + "/raw.tar.gz",
			GetterOptions: map[string]string{"archive": "false"}}, checks: []check{fileIs("local/raw.tar.gz", string(tarGz(t, entry{name: "f", body: "f"})))}},
		{name: "mode dir needs an archive", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin", GetterMode: "dir"},
			wantErr: `mode "dir" needs an archive`},
		{name: "zip-slip refused", art: structs.TaskArtifact{GetterSource: srv.URL + "/slip.zip"},
			wantErr: `archive entry "../../evil.txt" escapes the destination`},
		{name: "tar-slip refused", art: structs.TaskArtifact{GetterSource: srv.URL + "/slip.tar.gz"},
			wantErr: `archive entry "../evil.txt" escapes the destination`},
		{name: "symlink out refused", art: structs.TaskArtifact{GetterSource: srv.URL + "/link.tar.gz"},
			wantErr: "links outside the destination"},
		{name: "write through symlink refused", art: structs.TaskArtifact{GetterSource: srv.URL + "/through.tgz"},
			wantErr: "goes through a symlink"},
		{name: "destination escape refused", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin", RelativeDest: "local/../../other"},
			wantErr: `path "local/../../other" escapes the task directory`},
		{name: "http 404", art: structs.TaskArtifact{GetterSource: srv.URL + "/nope.bin"}, wantErr: "bad response code: 404"},
		{name: "file URL copied", art: structs.TaskArtifact{GetterSource: "file://" + localFile},
			checks: []check{fileIs("local/seed.txt", "seed"), modeIs("local/seed.txt", 0o644)}},
		{name: "local path with checksum", art: structs.TaskArtifact{GetterSource: localFile, RelativeDest: "/local/in",
			GetterOptions: map[string]string{"checksum": sha256Hex("seed")}}, checks: []check{fileIs("local/in/seed.txt", "seed")}},
		{name: "local directory copied", art: structs.TaskArtifact{GetterSource: filepath.Join(localDir, "tree"), RelativeDest: "local/tree"},
			checks: []check{fileIs("local/tree/sub/leaf", "leaf")}},
		{name: "missing local file", art: structs.TaskArtifact{GetterSource: "/does/not/exist"}, wantErr: "no such file"},
		{name: "unsupported getter", art: structs.TaskArtifact{GetterSource: "git::https://example.com/repo"}, wantErr: `getter "git" is not supported`},
		{name: "unsupported scheme", art: structs.TaskArtifact{GetterSource: "s3://bucket/key"}, wantErr: "unsupported source"},
		{name: "unknown mode", art: structs.TaskArtifact{GetterSource: srv.URL + "/app.bin", GetterMode: "tree"}, wantErr: `unknown mode "tree"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			art := tc.art
			r := runTask(t, &structs.Task{Artifacts: []*structs.TaskArtifact{&art}}, nil)
			checkOutcome(t, r, EventArtifactDownloadFailed, tc.wantErr)
			if !r.hasEvent(EventDownloadingArtifacts) {
				t.Errorf("no %q event: %v", EventDownloadingArtifacts, eventTypes(r.state))
			}
			if tc.wantErr != "" && !strings.Contains(r.failure().DisplayMessage, "failed to download artifact") {
				t.Errorf("message %q does not name the artifact", r.failure().DisplayMessage)
			}
			for _, c := range tc.checks {
				c(t, r.taskDir)
			}
			// Nothing lands next to the task dir, whatever the archive says.
			if _, err := os.Stat(filepath.Join(filepath.Dir(r.taskDir.Dir), "evil.txt")); err == nil {
				t.Fatal("an archive entry escaped")
			}
		})
	}
}

func modeIs(rel string, want os.FileMode) func(t *testing.T, td drivers.TaskDir) {
	return func(t *testing.T, td drivers.TaskDir) {
		t.Helper()
		fi, err := os.Stat(filepath.Join(td.Dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Fatalf("%s mode = %v, want %v", rel, fi.Mode().Perm(), want)
		}
	}
}

func TestArtifactSizeCap(t *testing.T) {
	old := artifactMaxSize
	artifactMaxSize = 4
	t.Cleanup(func() { artifactMaxSize = old })
	srv := artifactServer(t, map[string][]byte{"/big": []byte("0123456789")})
	r := runTask(t, &structs.Task{Artifacts: []*structs.TaskArtifact{{GetterSource: srv.URL + "/big"}}}, nil)
	checkOutcome(t, r, EventArtifactDownloadFailed, "larger than 4 bytes")
}

// An existing symlink in the task dir (left by an earlier run of the task)
// must not redirect a download outside it.
func TestArtifactRefusesSymlinkedDestination(t *testing.T) {
	srv := artifactServer(t, map[string][]byte{"/app.bin": []byte("x")})
	outside := t.TempDir()
	r := runTask(t, &structs.Task{Artifacts: []*structs.TaskArtifact{{GetterSource: srv.URL + "/app.bin", RelativeDest: "local/out"}}},
		func(td drivers.TaskDir) {
			if err := os.Symlink(outside, filepath.Join(td.LocalDir, "out")); err != nil {
				t.Fatal(err)
			}
		})
	checkOutcome(t, r, EventArtifactDownloadFailed, "goes through a symlink")
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the task dir: %v", entries)
	}
}

// A kill while an artifact downloads ends the task as killed, not failed.
func TestArtifactDownloadKilled(t *testing.T) {
	requested := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(requested)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	tr, rec, td := startTask(t, &structs.Task{Artifacts: []*structs.TaskArtifact{{GetterSource: srv.URL + "/slow"}}}, nil)
	<-requested
	tr.Kill(nil)
	r := waitTask(t, tr, rec, td)
	if r.state.State != structs.TaskStateDead || r.state.Failed || r.failure() != nil || r.started != nil {
		t.Fatalf("state %s failed=%v events %v", r.state.State, r.state.Failed, eventTypes(r.state))
	}
}

// TestArtifactHostPathRefusedByDefault: without the client option, a local
// source outside the alloc dir is refused (a job must not read the
// client's own files); inside the alloc dir it is fine.
func TestArtifactHostPathRefusedByDefault(t *testing.T) {
	host := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(host, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	deny := map[string]string{"deny-host-artifacts": "1"}
	r := runTask(t, &structs.Task{Meta: deny, Artifacts: []*structs.TaskArtifact{{GetterSource: host}}}, nil)
	checkOutcome(t, r, EventArtifactDownloadFailed, "outside the allocation directory")

	r = runTask(t, &structs.Task{Meta: deny, Artifacts: []*structs.TaskArtifact{{GetterSource: "${NOMAD_ALLOC_DIR}/seed.txt"}}},
		func(td drivers.TaskDir) {
			if err := os.MkdirAll(td.AllocDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(td.AllocDir, "seed.txt"), []byte("seed"), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	checkOutcome(t, r, EventArtifactDownloadFailed, "")
	fileIsT("local/seed.txt", "seed")(t, r.taskDir)
}
