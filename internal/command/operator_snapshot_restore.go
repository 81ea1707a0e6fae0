package command

import (
	"fmt"
	"os"
)

func init() { register("operator snapshot restore", operatorSnapshotRestoreCmd) }

func operatorSnapshotRestoreCmd() *cmd {
	return &cmd{
		Name: "operator snapshot restore", Args: "<file>", MinArgs: 1, MaxArgs: 1,
		Synopsis: "Restore the cluster state from a snapshot file",
		Help: "Replaces the whole server state with the snapshot's, as written by\n" +
			"`drover operator snapshot save`. Everything changed since the snapshot\n" +
			"was taken is lost.",
		Run: func(e *env, args []string) error {
			if err := e.restoreSnapshot(args[0]); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, "Snapshot Restored")
			return nil
		},
	}
}

func (e *env) restoreSnapshot(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return errorf("opening the snapshot: %v", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return errorf("opening the snapshot: %s is a directory", path)
	}
	cl, err := e.api()
	if err != nil {
		return err
	}
	if _, err := cl.Operator().SnapshotRestore(f, e.write()); err != nil {
		return apiError("restoring snapshot "+path, err)
	}
	return nil
}
