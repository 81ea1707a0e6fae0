package agent

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/config"
	"github.com/drover-project/drover/internal/structs"
)

// TestJobRegister_FullDiskIs503WithoutServerPaths fails the register's raft
// write as a full disk would (an ENOSPC from the log store, with the
// store's path in it) and checks, through the official client, that the
// answer is a 503 that says so without the server's file paths, and that
// nothing was written.
func TestJobRegister_FullDiskIs503WithoutServerPaths(t *testing.T) {
	const path = "/var/lib/drover/server/raft/raft.db"
	a, c := testAgent(t, func(cfg *config.Config) {
		cfg.RaftApplyFault = func(mt structs.MessageType) error {
			if mt != structs.JobRegisterRequestType {
				return nil
			}
			return fmt.Errorf("failed to append to logs: %w", &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC})
		}
	})
	before := a.Server().State().LatestIndex()
	_, _, err := c.Jobs().Register(testAPIJob("web"), nil)
	var resp api.UnexpectedResponseError
	if !errors.As(err, &resp) || resp.StatusCode() != http.StatusServiceUnavailable {
		t.Fatalf("register on a full disk = %v, want a 503", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "/var/lib") || strings.Contains(msg, "raft.db") {
		t.Errorf("message %q shows the server's paths", msg)
	}
	if !strings.Contains(msg, "disk") {
		t.Errorf("message %q does not say the disk is full", msg)
	}
	if after := a.Server().State().LatestIndex(); after != before {
		t.Errorf("state index moved from %d to %d on a failed write", before, after)
	}
	if _, _, err := c.Jobs().Info("web", nil); err == nil {
		t.Errorf("the job was written")
	}
}
