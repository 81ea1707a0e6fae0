package taskrunner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/structs"
)

// writeDispatchPayload writes a dispatched job's payload to the file the
// task's dispatch_payload block names, under its local/ dir, before the
// task (and its templates) first start. A job that was not dispatched,
// or a task without the block, writes nothing.
func writeDispatchPayload(td drivers.TaskDir, job *structs.Job, task *structs.Task) error {
	if job == nil || task.DispatchPayload == nil || task.DispatchPayload.File == "" || job.Payload == nil {
		return nil
	}
	name := task.DispatchPayload.File
	dst := filepath.Join(td.LocalDir, name)
	rel, err := filepath.Rel(td.LocalDir, dst)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("dispatch_payload file %q is outside the task's local dir", name)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("dispatch_payload: %w", err)
	}
	// O_NOFOLLOW: a symlink left at the name must not redirect the write.
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("dispatch_payload: %w", err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return fmt.Errorf("dispatch_payload: %w", err)
	}
	if _, err := f.Write(job.Payload); err != nil {
		f.Close()
		return fmt.Errorf("dispatch_payload: %w", err)
	}
	return f.Close()
}
