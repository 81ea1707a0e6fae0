package agent

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// TestClientFS_Stream follows a file as `alloc fs -f` does: what exists
// first, then what is appended, with offsets; origin=end counts back;
// paths outside the alloc dir are refused.
func TestClientFS_Stream(t *testing.T) {
	a, c := clientTestAgent(t)
	alloc := runJob(t, c, shellJob("fsstream",
		`echo first > local/f.txt; while [ ! -f local/more ]; do sleep 0.1; done; echo second >> local/f.txt; sleep 300`))
	eventually(t, 10*time.Second, func() string {
		if _, _, err := c.AllocFS().Stat(alloc, "t/local/f.txt", nil); err != nil {
			return err.Error()
		}
		return ""
	})

	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := c.AllocFS().Stream(alloc, "t/local/f.txt", api.OriginStart, 0, cancel, nil)
	var got bytes.Buffer
	var last *api.StreamFrame
	read := func(want string) {
		t.Helper()
		timeout := time.After(15 * time.Second)
		for got.String() != want {
			select {
			case f := <-frames:
				if f == nil {
					t.Fatalf("stream ended at %q, want %q", got.String(), want)
				}
				if len(f.Data) > 0 {
					got.Write(f.Data)
					last = f
				}
			case err := <-errs:
				t.Fatalf("stream: %v", err)
			case <-timeout:
				t.Fatalf("stream has %q, want %q", got.String(), want)
			}
		}
	}
	read("first\n")
	if last.File != "t/local/f.txt" || last.Offset != 6 {
		t.Errorf("frame File %q Offset %d, want t/local/f.txt 6", last.File, last.Offset)
	}
	ctx, stop := context.WithTimeout(context.Background(), 20*time.Second)
	defer stop()
	var out bytes.Buffer
	if code, err := c.Allocations().Exec(ctx, alloc, "t", false, []string{"touch", "local/more"}, strings.NewReader(""), &out, &out, nil, nil); err != nil || code != 0 {
		t.Fatalf("touch local/more: %d %v %q", code, err, out.String())
	}
	read("first\nsecond\n")
	if last.Offset != 13 {
		t.Errorf("Offset after append %d, want 13", last.Offset)
	}

	for name, tc := range map[string]struct {
		q    url.Values
		code int
		body string
	}{
		"end back 7": {url.Values{"path": {"t/local/f.txt"}, "origin": {"end"}, "offset": {"7"}, "follow": {"false"}, "plain": {"true"}}, 200, "second\n"},
		"start at 6": {url.Values{"path": {"t/local/f.txt"}, "offset": {"6"}, "follow": {"false"}, "plain": {"true"}}, 200, "second\n"},
		"escape":     {url.Values{"path": {"../../../../etc/passwd"}}, 400, ""},
		"directory":  {url.Values{"path": {"t/local"}}, 400, ""},
		"missing":    {url.Values{"path": {"t/local/nope"}}, 404, ""},
		"bad origin": {url.Values{"path": {"t/local/f.txt"}, "origin": {"middle"}}, 400, ""},
	} {
		code, body := rawGet(t, a.HTTPAddr(), "/v1/client/fs/stream/"+alloc.ID, tc.q)
		if code != tc.code || (tc.body != "" && body != tc.body) {
			t.Errorf("%s: %d %q, want %d %q", name, code, body, tc.code, tc.body)
		}
	}
}
