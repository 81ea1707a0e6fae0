package client

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/allocrunner"
	"github.com/drover-project/drover/internal/structs"
)

// ephemeral_disk { migrate = true } across nodes, as Nomad does it: the
// client of the replacement asks the servers about the previous alloc
// (PrevAllocMigrator), waits until it is terminal, then downloads its
// alloc/data and tasks' local/ from the previous node's agent (GET
// /v1/client/allocation/:id/snapshot, authorized by the migrate token the
// servers hand out), unpacks them into a staging tree (allocdir.Unpack,
// which trusts nothing in the stream) and moves them into the new alloc
// before its tasks start. A previous node that is down, or a previous
// alloc already collected, leaves the new alloc with empty dirs, as in
// Nomad.

// PrevAllocMigrator is the servers' side of a cross-node migration
// (Node.PrevAllocMigration); Servers implementations without it migrate
// nothing across nodes.
type PrevAllocMigrator interface {
	PrevAllocMigration(ctx context.Context, args *structs.PrevAllocMigrationArgs) (*structs.PrevAllocMigrationResponse, error)
}

// migrateRetry is the pause after a failed question to the servers.
const migrateRetry = 2 * time.Second

// remotePrevious is the PreviousAlloc of a on another node, or nil when
// the servers cannot answer migrations.
func (c *Client) remotePrevious(a *structs.Allocation) *allocrunner.PreviousAlloc {
	m, ok := c.servers.(PrevAllocMigrator)
	if !ok {
		return nil
	}
	limit := int64(0)
	if tg := a.Group(); tg != nil && tg.EphemeralDisk != nil && tg.EphemeralDisk.SizeMB > 0 {
		limit = int64(tg.EphemeralDisk.SizeMB) << 20
	}
	return &allocrunner.PreviousAlloc{ID: a.PreviousAllocation,
		Fetch: func(ctx context.Context, dest *allocdir.AllocDir, tasks []string) error {
			return c.migrateFrom(ctx, m, a.ID, dest, tasks, limit)
		}}
}

// migrateFrom waits for allocID's previous alloc to be terminal and
// copies its data into dest.
func (c *Client) migrateFrom(ctx context.Context, m PrevAllocMigrator, allocID string, dest *allocdir.AllocDir, tasks []string, limit int64) error {
	args := &structs.PrevAllocMigrationArgs{NodeID: c.nodeID, SecretID: c.secretID, AllocID: allocID}
	args.Region = c.cfg.Region
	args.MaxQueryTime = c.cfg.MaxQueryTime
	var resp *structs.PrevAllocMigrationResponse
	for {
		var err error
		resp, err = m.PrevAllocMigration(ctx, args)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			c.logger.Warn("migrating ephemeral disk: asking the servers about the previous alloc", "alloc_id", allocID, "error", err)
			select {
			case <-c.clock.After(migrateRetry):
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		case resp.Gone:
			return fmt.Errorf("previous alloc %s no longer exists (garbage collected): nothing to migrate", resp.PrevAllocID)
		case resp.NodeDown:
			return fmt.Errorf("previous alloc %s ran on node %s, which is down: nothing to migrate", resp.PrevAllocID, resp.PrevNodeID)
		case resp.Terminal:
			return c.downloadSnapshot(ctx, resp, dest, tasks, limit)
		}
		if resp.Index > args.MinQueryIndex {
			args.MinQueryIndex = resp.Index
		}
	}
}

// downloadSnapshot fetches the previous alloc's snapshot from its node and
// moves it into dest.
func (c *Client) downloadSnapshot(ctx context.Context, resp *structs.PrevAllocMigrationResponse, dest *allocdir.AllocDir, tasks []string, limit int64) error {
	if resp.HTTPAddr == "" {
		return fmt.Errorf("previous alloc %s: its node %s advertises no HTTP address", resp.PrevAllocID, resp.PrevNodeID)
	}
	scheme := "http"
	if resp.TLSEnabled {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: resp.HTTPAddr, Path: "/v1/client/allocation/" + resp.PrevAllocID + "/snapshot"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Nomad-Token", resp.MigrateToken)
	httpResp, err := c.migrateHTTP().Do(req)
	if err != nil {
		return fmt.Errorf("previous alloc %s: fetching its data from %s: %w", resp.PrevAllocID, resp.HTTPAddr, err)
	}
	defer httpResp.Body.Close()
	if httpResp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(httpResp.Body, 1024))
		return fmt.Errorf("previous alloc %s: its node %s answered %s: %s", resp.PrevAllocID, resp.HTTPAddr, httpResp.Status, msg)
	}
	// Staged beside the alloc dirs (one filesystem, so the move is a
	// rename), under a name no alloc ID can take.
	staging := allocdir.New(filepath.Dir(dest.Root), ".migrate-"+filepath.Base(dest.Root))
	if err := os.RemoveAll(staging.Root); err != nil {
		return err
	}
	if err := os.MkdirAll(staging.Root, 0o700); err != nil {
		return err
	}
	defer os.RemoveAll(staging.Root)
	if err := allocdir.Unpack(httpResp.Body, staging.Root, tasks, limit); err != nil {
		return fmt.Errorf("previous alloc %s: %w", resp.PrevAllocID, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return dest.MoveFrom(staging, tasks)
}

// migrateHTTP is the HTTP client that fetches snapshots: the agent's TLS
// settings for https nodes (Config.HTTPClientTLS), no proxy, bounded dials.
func (c *Client) migrateHTTP() *http.Client {
	t := &http.Transport{
		Proxy:       nil,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}
	if c.cfg.HTTPClientTLS != nil {
		t.TLSClientConfig = c.cfg.HTTPClientTLS.Clone()
	}
	return &http.Client{Transport: t}
}

// ValidMigrateToken reports whether token is the migrate token of
// allocID, an alloc this client runs (or ran), for this node.
func (c *Client) ValidMigrateToken(allocID, token string) bool {
	return c.HasAlloc(allocID) && structs.CompareMigrateToken(allocID, c.secretID, token)
}

// SnapshotAlloc writes the tar of allocID's migratable data (its
// alloc/data and tasks' local/) to w (allocdir.Snapshot).
func (c *Client) SnapshotAlloc(allocID string, w io.Writer) error {
	r, err := c.runner(allocID)
	if err != nil {
		return err
	}
	var tasks []string
	if tg := r.Alloc().Group(); tg != nil {
		for _, t := range tg.Tasks {
			if t != nil {
				tasks = append(tasks, t.Name)
			}
		}
	}
	return r.AllocDir().Snapshot(w, tasks)
}
