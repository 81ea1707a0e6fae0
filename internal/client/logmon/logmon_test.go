package logmon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRotatorRotatesAndPurges(t *testing.T) {
	dir := t.TempDir()
	r, err := NewRotator(dir, "web.stdout", 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Write([]byte(strings.Repeat("a", 45))); err != nil {
		t.Fatal(err)
	}
	r.Close()
	files, _ := List(dir, "web.stdout")
	if len(files) != 3 || files[0].Index != 2 || files[2].Index != 4 || files[2].Size != 5 || files[1].Size != 10 {
		t.Fatalf("files = %+v", files)
	}
	// A new rotator (client restart) appends to the newest file.
	r, _ = NewRotator(dir, "web.stdout", 3, 10)
	r.Write([]byte("bbb"))
	r.Close()
	files, _ = List(dir, "web.stdout")
	if b, _ := os.ReadFile(files[len(files)-1].Path); string(b) != "aaaaabbb" {
		t.Fatalf("newest = %q", b)
	}
}

func TestTailerCopiesAndResumes(t *testing.T) {
	dir := t.TempDir()
	live := LivePath(dir, "web", Stdout)
	r, _ := NewRotator(dir, Base("web", Stdout), 5, 1<<20)
	tl, err := StartTailer(live, r, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := os.OpenFile(live, os.O_WRONLY|os.O_APPEND, 0)
	w.WriteString("hello ")
	if err := tl.Flush(); err != nil {
		t.Fatal(err)
	}
	tl.Stop()
	r.Close()
	// Written while no client runs, picked up by the next tailer.
	w.WriteString(strings.Repeat("x", 10000))
	w.Close()
	r, _ = NewRotator(dir, Base("web", Stdout), 5, 1<<20)
	tl, _ = StartTailer(live, r, time.Hour)
	tl.Stop()
	r.Close()
	b, _ := os.ReadFile(filepath.Join(dir, "web.stdout.0"))
	if string(b) != "hello "+strings.Repeat("x", 10000) {
		t.Fatalf("log = %d bytes, prefix %q", len(b), b[:10])
	}
}

// TestTailerDetachLeavesTheRestToTheNextTailer: Detach copies nothing
// more; the next tailer picks up from the saved offset.
func TestTailerDetachLeavesTheRestToTheNextTailer(t *testing.T) {
	dir := t.TempDir()
	live := LivePath(dir, "web", Stdout)
	out := filepath.Join(dir, "web.stdout.0")
	r, _ := NewRotator(dir, Base("web", Stdout), 5, 1<<20)
	tl, err := StartTailer(live, r, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := os.OpenFile(live, os.O_WRONLY|os.O_APPEND, 0)
	defer w.Close()
	w.WriteString("copied ")
	if err := tl.Flush(); err != nil {
		t.Fatal(err)
	}
	w.WriteString("left")
	tl.Detach()
	r.Close()
	if b, _ := os.ReadFile(out); string(b) != "copied " {
		t.Fatalf("after Detach the log holds %q", b)
	}
	r, _ = NewRotator(dir, Base("web", Stdout), 5, 1<<20)
	tl, _ = StartTailer(live, r, time.Hour)
	tl.Stop()
	r.Close()
	if b, _ := os.ReadFile(out); string(b) != "copied left" {
		t.Fatalf("the next tailer left the log at %q", b)
	}
}
