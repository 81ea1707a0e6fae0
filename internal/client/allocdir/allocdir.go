// Package allocdir lays out an allocation's directory tree:
//
//	<root>/<alloc-id>/alloc          shared by the alloc's tasks (NOMAD_ALLOC_DIR)
//	<root>/<alloc-id>/alloc/logs     every task's rotated stdout/stderr
//	<root>/<alloc-id>/alloc/data     shared scratch kept with the alloc
//	<root>/<alloc-id>/alloc/tmp
//	<root>/<alloc-id>/<task>         the task's root (exec chroots here)
//	<root>/<alloc-id>/<task>/local   NOMAD_TASK_DIR
//	<root>/<alloc-id>/<task>/secrets NOMAD_SECRETS_DIR (mode 0700)
//	<root>/<alloc-id>/<task>/tmp
package allocdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/drover-project/drover/internal/client/drivers"
)

// Names of the fixed directories.
const (
	SharedDirName  = "alloc"
	LogDirName     = "logs"
	DataDirName    = "data"
	TmpDirName     = "tmp"
	LocalDirName   = "local"
	SecretsDirName = "secrets"
)

// AllocDir is one alloc's tree.
type AllocDir struct {
	Root      string // <root>/<alloc-id>
	SharedDir string // <Root>/alloc
	LogDir    string // <Root>/alloc/logs
}

// New describes the tree of allocID under root; nothing is created yet.
func New(root, allocID string) *AllocDir {
	r := filepath.Join(root, allocID)
	shared := filepath.Join(r, SharedDirName)
	return &AllocDir{Root: r, SharedDir: shared, LogDir: filepath.Join(shared, LogDirName)}
}

// Build creates the shared directories. Directories are world-writable
// (sticky) like /tmp because a task may run as another user than the client.
func (d *AllocDir) Build() error {
	for _, p := range []string{d.Root, d.SharedDir, d.LogDir, filepath.Join(d.SharedDir, DataDirName), filepath.Join(d.SharedDir, TmpDirName)} {
		if err := mkdir(p, 0o777|os.ModeSticky); err != nil {
			return err
		}
	}
	return nil
}

// TaskDir describes a task's directories.
func (d *AllocDir) TaskDir(task string) drivers.TaskDir {
	dir := filepath.Join(d.Root, task)
	return drivers.TaskDir{
		Dir:        dir,
		AllocDir:   d.SharedDir,
		LocalDir:   filepath.Join(dir, LocalDirName),
		SecretsDir: filepath.Join(dir, SecretsDirName),
		LogDir:     d.LogDir,
	}
}

// BuildTask creates a task's directories. A task name that would escape
// the alloc dir is refused: names come from job files.
func (d *AllocDir) BuildTask(task string) (drivers.TaskDir, error) {
	if task == "" || strings.ContainsAny(task, `/\`) || task == "." || task == ".." || task == SharedDirName {
		return drivers.TaskDir{}, fmt.Errorf("invalid task name %q for a directory", task)
	}
	td := d.TaskDir(task)
	if err := mkdir(td.Dir, 0o777|os.ModeSticky); err != nil {
		return td, err
	}
	if err := mkdir(td.LocalDir, 0o777|os.ModeSticky); err != nil {
		return td, err
	}
	if err := mkdir(filepath.Join(td.Dir, TmpDirName), 0o777|os.ModeSticky); err != nil {
		return td, err
	}
	return td, mkdir(td.SecretsDir, 0o700)
}

// Destroy removes the whole tree.
func (d *AllocDir) Destroy() error { return os.RemoveAll(d.Root) }

// mkdir creates p and sets its mode explicitly, since MkdirAll's mode is
// filtered by the umask.
func mkdir(p string, mode os.FileMode) error {
	if err := os.MkdirAll(p, mode.Perm()); err != nil {
		return fmt.Errorf("create %s: %w", p, err)
	}
	if err := os.Chmod(p, mode); err != nil {
		return fmt.Errorf("chmod %s: %w", p, err)
	}
	return nil
}

// MoveFrom moves a previous alloc's kept data into this one, as a sticky
// ephemeral_disk asks: its alloc/data and each named task's local/
// replace this tree's (empty, just built) ones. Missing sources are
// skipped; both trees must be on one filesystem (the client's alloc dir).
func (d *AllocDir) MoveFrom(prev *AllocDir, tasks []string) error {
	moves := [][2]string{{filepath.Join(prev.SharedDir, DataDirName), filepath.Join(d.SharedDir, DataDirName)}}
	for _, t := range tasks {
		if t == "" || strings.ContainsAny(t, `/\`) || t == "." || t == ".." || t == SharedDirName {
			continue
		}
		moves = append(moves, [2]string{prev.TaskDir(t).LocalDir, d.TaskDir(t).LocalDir})
	}
	for _, m := range moves {
		if _, err := os.Lstat(m[0]); os.IsNotExist(err) {
			continue
		}
		if err := mkdir(filepath.Dir(m[1]), 0o777|os.ModeSticky); err != nil {
			return err
		}
		if err := os.RemoveAll(m[1]); err != nil {
			return fmt.Errorf("clear %s: %w", m[1], err)
		}
		if err := os.Rename(m[0], m[1]); err != nil {
			return fmt.Errorf("move %s: %w", m[0], err)
		}
	}
	return nil
}
