package agent

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/client"
	"github.com/drover-project/drover/internal/server"
)

func (h *HTTPServer) clientFSRoutes() {
	h.allocHandler("GET /v1/client/fs/ls/{id}", h.fsList)
	h.allocHandler("GET /v1/client/fs/stat/{id}", h.fsStat)
	h.allocHandler("GET /v1/client/fs/cat/{id}", h.fsCat)
	h.allocHandler("GET /v1/client/fs/readat/{id}", h.fsReadAt)
}

// clientError maps the client's errors to HTTP statuses.
func clientError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, client.ErrUnknownAlloc), errors.Is(err, client.ErrUnknownTask):
		return server.NotFound("%v", err)
	case errors.Is(err, client.ErrBadRequest):
		return server.BadRequest("%v", err)
	}
	return err
}

// allocPath resolves the path parameter inside the alloc's directory.
// Anything that leads outside it, lexically or through a symlink, is a
// 400: the alloc dir is all a caller may read of the node's disk. A path
// that does not exist is a 404.
func allocPath(c *client.Client, allocID, p string) (string, error) {
	root, err := c.AllocFS(allocID)
	if err != nil {
		return "", clientError(err)
	}
	if p == "" {
		p = "/"
	}
	full := filepath.Join(root, p)
	if !within(root, full) {
		return "", server.BadRequest("path %q is outside the allocation directory", p)
	}
	real, err := filepath.EvalSymlinks(full)
	if errors.Is(err, fs.ErrNotExist) {
		return "", server.NotFound("path %q does not exist in allocation %s", p, allocID)
	}
	if err != nil {
		return "", server.BadRequest("path %q: %v", p, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	if !within(realRoot, real) {
		return "", server.BadRequest("path %q leads outside the allocation directory", p)
	}
	return real, nil
}

// within reports whether path is root or below it (both clean).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func fileInfo(name string, fi fs.FileInfo) *api.AllocFileInfo {
	return &api.AllocFileInfo{Name: name, IsDir: fi.IsDir(), Size: fi.Size(), FileMode: fi.Mode().String(), ModTime: fi.ModTime()}
}

func (h *HTTPServer) fsList(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	dir, err := allocPath(c, allocID, r.URL.Query().Get("path"))
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, server.BadRequest("list %q: %v", r.URL.Query().Get("path"), err)
	}
	out := make([]*api.AllocFileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		out = append(out, fileInfo(e.Name(), fi))
	}
	return out, nil
}

func (h *HTTPServer) fsStat(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	p, err := allocPath(c, allocID, r.URL.Query().Get("path"))
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, server.NotFound("stat %q: %v", r.URL.Query().Get("path"), err)
	}
	info := fileInfo(fi.Name(), fi)
	if !fi.IsDir() {
		info.ContentType = detectContentType(p)
	}
	return info, nil
}

// detectContentType sniffs a file's first 512 bytes as Nomad's stat does.
func detectContentType(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := io.ReadFull(f, buf)
	return http.DetectContentType(buf[:n])
}

func (h *HTTPServer) fsCat(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	return h.serveFile(w, r, c, allocID, 0, -1)
}

// fsReadAt is cat from offset for at most limit bytes (limit <= 0: all).
func (h *HTTPServer) fsReadAt(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string) (any, error) {
	q := r.URL.Query()
	offset, err := intParam(q.Get("offset"), "offset")
	if err != nil {
		return nil, err
	}
	limit, err := intParam(q.Get("limit"), "limit")
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = -1
	}
	return h.serveFile(w, r, c, allocID, offset, limit)
}

// intParam parses a non-negative integer parameter; empty is 0.
func intParam(v, name string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, server.BadRequest("%s: %q is not a non-negative integer", name, v)
	}
	return n, nil
}

// serveFile writes the file's raw bytes from offset, at most limit of them
// (negative: to the end).
func (h *HTTPServer) serveFile(w http.ResponseWriter, r *http.Request, c *client.Client, allocID string, offset, limit int64) (any, error) {
	p, err := allocPath(c, allocID, r.URL.Query().Get("path"))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, server.NotFound("open %q: %v", r.URL.Query().Get("path"), err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		return nil, server.BadRequest("path %q is a directory, not a file", r.URL.Query().Get("path"))
	}
	var src io.Reader = io.NewSectionReader(f, offset, 1<<62)
	if limit >= 0 {
		src = io.LimitReader(src, limit)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := io.Copy(w, src); err != nil {
		h.log.Debug("http: write file", "path", r.URL.Path, "error", err)
	}
	return nil, nil
}
