package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/jsonstream"
	"github.com/moby/moby/client"
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
	serverBin  string // the compiled test server, kept for other images
)

// requireDaemon skips when no Docker daemon answers.
func requireDaemon(t testing.TB) *client.Client {
	t.Helper()
	c, err := newClient(DefaultEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	daemonOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, daemonErr = c.ServerVersion(ctx, client.ServerVersionOptions{})
	})
	if daemonErr != nil {
		t.Skipf("docker daemon unreachable at %s: %v", DefaultEndpoint, daemonErr)
	}
	return c
}

// requireImage builds the test image once: a static Go binary in a
// FROM scratch image, so no registry is needed.
func requireImage(t testing.TB) {
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

func buildTestImage(c *client.Client) error {
	dir, err := os.MkdirTemp("", "drover-docker-test")
	if err != nil {
		return err
	}
	bin := filepath.Join(dir, "server")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./testdata/server/main.go")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v: %s", err, out)
	}
	serverBin = bin
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	return buildImage(c, testImage, map[string][]byte{"server": data}, "")
}

// buildImage builds tag FROM scratch with the test server as entrypoint
// plus the given files (copied to /), with the classic builder, and
// surfaces the first error in its progress stream.
func buildImage(c *client.Client, tag string, files map[string][]byte, extra string) error {
	dockerfile := "FROM scratch\n"
	for name := range files {
		dockerfile += "COPY " + name + " /" + name + "\n"
	}
	dockerfile += extra + "ENTRYPOINT [\"/server\"]\n"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	all := map[string][]byte{"Dockerfile": []byte(dockerfile)}
	for k, v := range files {
		all[k] = v
	}
	for name, data := range all {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data))}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	res, err := c.ImageBuild(context.Background(), &buf, client.ImageBuildOptions{Tags: []string{tag}, Remove: true, ForceRemove: true})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return drainJSONMessages(res.Body)
}

// drainJSONMessages reads a build or push progress stream to its end and
// returns the first error it reports.
func drainJSONMessages(r io.Reader) error {
	for msg, err := range decodeMessages(r) {
		if err != nil {
			return err
		}
		if msg.Error != nil {
			return fmt.Errorf("%s", msg.Error.Message)
		}
	}
	return nil
}

// decodeMessages is the daemon's JSON progress stream, message by message.
func decodeMessages(r io.Reader) iter.Seq2[jsonstream.Message, error] {
	dec := json.NewDecoder(r)
	return func(yield func(jsonstream.Message, error) bool) {
		for {
			var m jsonstream.Message
			if err := dec.Decode(&m); err != nil {
				if !errors.Is(err, io.EOF) {
					yield(m, err)
				}
				return
			}
			if !yield(m, nil) {
				return
			}
		}
	}
}

func removeImage(c *client.Client, ref string) {
	_, _ = c.ImageRemove(context.Background(), ref, client.ImageRemoveOptions{Force: true, PruneChildren: true})
}

func TestMain(m *testing.M) {
	code := m.Run()
	if imageBuilt {
		if c, err := newClient(DefaultEndpoint); err == nil {
			removeImage(c, testImage)
		}
		os.RemoveAll(filepath.Dir(serverBin))
	}
	os.Exit(code)
}
