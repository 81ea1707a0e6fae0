package taskrunner

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// TaskAPISocket is the Task API's unix socket in the task's secrets dir
// (Nomad's ${NOMAD_SECRETS_DIR}/api.sock).
const TaskAPISocket = "api.sock"

// maxSocketPath is the longest path bind(2) takes for a unix socket
// (sun_path is 108 bytes with its NUL on Linux).
const maxSocketPath = 107

// startTaskAPI serves the agent's HTTP API to the task on
// secrets/api.sock until the task runner ends (the task dead for good, or
// the client shutting down), then closes it and removes the socket. Like
// Nomad's api hook it soft-fails: a socket that cannot be made is logged,
// and a task that needs it fails on its own. The handler authenticates
// every request (package agent's taskAPIHandler).
func (tr *TaskRunner) startTaskAPI(secretsDir string) {
	if tr.cfg.TaskAPI == nil {
		return
	}
	tr.taskAPIOnce.Do(func() { tr.serveTaskAPI(secretsDir) })
}

func (tr *TaskRunner) serveTaskAPI(secretsDir string) {
	path := filepath.Join(secretsDir, TaskAPISocket)
	_ = os.Remove(path) // a socket an earlier client left
	ln, err := listenUnix(path)
	if err != nil {
		tr.logger.Warn("task api: cannot create the socket", "path", path, "error", err)
		return
	}
	// The secrets dir guards the socket; a task running as another user
	// than the client must still be able to connect (Nomad's mode too).
	if err := os.Chmod(path, 0o666); err != nil {
		tr.logger.Warn("task api: chmod the socket", "path", path, "error", err)
	}
	srv := &http.Server{Handler: tr.cfg.TaskAPI, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			tr.logger.Warn("task api: serve", "error", err)
		}
	}()
	go func() {
		<-tr.doneCh
		_ = srv.Close()
		_ = os.Remove(path)
	}()
}

// listenUnix listens on a unix socket at path. A path longer than bind(2)
// takes (deep alloc dirs) is bound through /proc/self/fd/<dir fd>/<name>,
// which names the same file in a path short enough.
func listenUnix(path string) (net.Listener, error) {
	if len(path) <= maxSocketPath {
		return net.Listen("unix", path)
	}
	dir, err := os.OpenFile(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	short := fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), filepath.Base(path))
	ln, err := net.Listen("unix", short)
	if err != nil {
		return nil, err
	}
	// Close must not unlink the /proc path, gone with the fd; the runner
	// removes the socket by its real path.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}
