package command

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

func init() { register("operator snapshot save", operatorSnapshotSaveCmd) }

func operatorSnapshotSaveCmd() *cmd {
	return &cmd{
		Name: "operator snapshot save", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Save a snapshot of the cluster state to a file",
		Help: "Writes the whole server state (jobs, evaluations, allocations,\n" +
			"deployments, nodes, ...) to the file. The file is written under a\n" +
			"temporary name and renamed once complete, so an interrupted save never\n" +
			"leaves a truncated snapshot under the requested name.",
		Run: func(e *env, args []string) error {
			if err := e.saveSnapshot(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "State file written to %s\n", args[0])
			return nil
		},
	}
}

// saveSnapshot streams the snapshot into a temporary file in the target's
// directory (so the rename cannot cross file systems) and renames it into
// place only after the agent's checksum has been verified.
func (e *env) saveSnapshot(path string) error {
	cl, err := e.api()
	if err != nil {
		return err
	}
	body, err := cl.Operator().Snapshot(e.query())
	if err != nil {
		return apiError("requesting a snapshot", err)
	}
	defer body.Close()
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The temporary name is random and means nothing to the user.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return errorf("cannot write the snapshot into %s: %v", dir, err)
	}
	if err := writeAndClose(tmp, body); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return errorf("moving the snapshot into place: %v", err)
	}
	return nil
}

// writeAndClose copies the snapshot and flushes it to disk. The body's
// reader checks the Digest header at EOF, so a corrupted transfer fails
// the copy instead of leaving a bad file.
func writeAndClose(f *os.File, body io.Reader) error {
	_, err := io.Copy(f, body)
	if err != nil {
		f.Close()
		return errorf("receiving the snapshot: %v", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return errorf("writing %s: %v", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return errorf("writing %s: %v", f.Name(), err)
	}
	return nil
}
