package drivers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// A task's supervisor process (the raw_exec supervisor; the exec executor
// speaks the same protocol) outlives the client that started it. It tells
// the driver over a pipe whether the task started (one status line), and
// writes the task's exit to a file, so that a client that restarted in the
// meantime still learns how the task ended.

// ExitRecord is the exit file's content.
type ExitRecord struct {
	ExitCode int
	Signal   int
}

// WriteExitRecord writes the exit file atomically, so a reader never sees
// half a record.
func WriteExitRecord(path string, rec ExitRecord) error {
	b, _ := json.Marshal(rec)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ReadExitRecord returns the exit the file records, or nil when there is
// no file (the supervisor has not finished, or died with the task).
func ReadExitRecord(path string) *ExitResult {
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rec ExitRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return &ExitResult{ExitCode: -1, Err: fmt.Errorf("corrupt exit file %s", path)}
	}
	return &ExitResult{ExitCode: rec.ExitCode, Signal: rec.Signal}
}

// supervisorStatus is the one line a supervisor writes once the task
// started, or could not.
type supervisorStatus struct {
	Error string `json:",omitempty"`
}

// WriteSupervisorStatus reports the start (err nil) or its failure, and
// closes w.
func WriteSupervisorStatus(w io.WriteCloser, err error) {
	st := supervisorStatus{}
	if err != nil {
		st.Error = err.Error()
	}
	_ = json.NewEncoder(w).Encode(st)
	w.Close()
}

// ReadSupervisorStatus waits for the status line: nil when the task
// started, the supervisor's error otherwise.
func ReadSupervisorStatus(ctx context.Context, r io.Reader, who string) error {
	done := make(chan error, 1)
	go func() {
		var st supervisorStatus
		line, err := bufio.NewReader(r).ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &st)
		}
		switch {
		case err != nil:
			done <- fmt.Errorf("%s exited without reporting status: %w", who, err)
		case st.Error != "":
			done <- errors.New(st.Error)
		default:
			done <- nil
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
