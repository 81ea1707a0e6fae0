package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// testImage is built once per package run from testdata/server. The tag
// names the process: test runs sharing a Docker daemon (parallel CI jobs,
// several checkouts) must not remove each other's image.
var testImage = "drover-test-server:" + strconv.Itoa(os.Getpid())

var (
	daemonOnce sync.Once
	daemonErr  error
	imageOnce  sync.Once
	imageErr   error
	imageBuilt bool
)

// requireDaemon skips when no Docker daemon answers.
func requireDaemon(t *testing.T) *Client {
	t.Helper()
	c, err := NewClient(DefaultEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	daemonOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, daemonErr = c.Version(ctx)
	})
	if daemonErr != nil {
		t.Skipf("docker daemon unreachable at %s: %v", DefaultEndpoint, daemonErr)
	}
	return c
}

// requireImage builds the test image once: a static Go binary in a
// FROM scratch image, so no registry is needed.
func requireImage(t *testing.T) {
	t.Helper()
	c := requireDaemon(t)
	imageOnce.Do(func() {
		imageErr = buildTestImage(c)
		imageBuilt = imageErr == nil
	})
	if imageErr != nil {
		t.Fatalf("build test image: %v", imageErr)
	}
}

func buildTestImage(c *Client) error {
	dir, err := os.MkdirTemp("", "drover-docker-test")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "server")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./testdata/server/main.go")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v: %s", err, out)
	}
	ctxTar, err := buildContext(bin)
	if err != nil {
		return err
	}
	return c.build(context.Background(), testImage, ctxTar)
}

// buildContext is a tar of the Dockerfile and the binary.
func buildContext(bin string) (io.Reader, error) {
	binData, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	dockerfile := []byte("FROM scratch\nCOPY server /server\nENTRYPOINT [\"/server\"]\n")
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"Dockerfile", 0o644, dockerfile}, {"server", 0o755, binData}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	return &buf, tw.Close()
}

// build runs POST /build with the classic builder and surfaces the first
// error message in its progress stream.
func (c *Client) build(ctx context.Context, tag string, tarball io.Reader) error {
	q := url.Values{"t": {tag}, "rm": {"1"}, "forcerm": {"1"}}
	resp, err := c.request(ctx, http.MethodPost, "/build", q, tarball, "application/x-tar")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var msg struct{ Error string }
		if err := dec.Decode(&msg); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if msg.Error != "" {
			return errors.New(msg.Error)
		}
	}
}

func removeTestImage() {
	if !imageBuilt {
		return
	}
	c, err := NewClient(DefaultEndpoint)
	if err != nil {
		return
	}
	_ = c.call(context.Background(), http.MethodDelete, "/images/"+url.PathEscape(testImage), url.Values{"force": {"1"}}, nil, nil)
}

func TestMain(m *testing.M) {
	code := m.Run()
	removeTestImage()
	os.Exit(code)
}
