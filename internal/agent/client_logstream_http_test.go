package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client/logmon"
)

func TestSeekLog_CrossesFiles(t *testing.T) {
	files := []logmon.LogFile{{Index: 3, Size: 10}, {Index: 4, Size: 10}, {Index: 5, Size: 4}}
	for _, tc := range []struct {
		origin  string
		offset  int64
		wantI   int
		wantOff int64
	}{
		{"start", 0, 0, 0}, {"start", 9, 0, 9}, {"start", 10, 1, 0}, {"start", 23, 2, 3}, {"start", 99, 2, 4},
		{"end", 0, 2, 4}, {"end", 4, 2, 0}, {"end", 5, 1, 9}, {"end", 99, 0, 0},
	} {
		i, off := seekLog(files, tc.origin, tc.offset)
		if i != tc.wantI || off != tc.wantOff {
			t.Errorf("%s %d: file %d offset %d, want %d %d", tc.origin, tc.offset, i, off, tc.wantI, tc.wantOff)
		}
	}
}

// TestLogStreamer_FollowsRotationAndBeats follows a stream while a new
// rotated file appears, and sees heartbeats while it is idle.
func TestLogStreamer_FollowsRotationAndBeats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(data)
		f.Close()
	}
	write("t.stdout.0", "one\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ls := &logStreamer{
			list:     func() ([]logmon.LogFile, error) { return logmon.List(dir, "t.stdout") },
			finished: func() bool { return false },
			out:      newFrameWriter(w, false), follow: true,
			poll: 10 * time.Millisecond, heartbeat: 50 * time.Millisecond,
		}
		ls.run(r.Context(), "start", 0)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	var data strings.Builder
	var files []string
	beats := 0
	for step := 0; beats < 2 || data.String() != "one\ntwo\nthree\n"; step++ {
		var f api.StreamFrame
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("after %q: %v", data.String(), err)
		}
		if f.IsHeartbeat() {
			beats++
		} else {
			data.Write(f.Data)
			files = append(files, f.File)
		}
		if step == 0 {
			write("t.stdout.0", "two\n")
			write("t.stdout.1", "three\n")
		}
	}
	if files[0] != "alloc/logs/t.stdout.0" || files[len(files)-1] != "alloc/logs/t.stdout.1" {
		t.Errorf("frame files %v", files)
	}
}
