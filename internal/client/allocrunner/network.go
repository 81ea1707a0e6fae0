package allocrunner

import (
	"context"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/client/taskrunner"
	"github.com/drover-project/drover/internal/structs"
)

// Networks gives allocs whose group network is bridge, cni/* or none a
// network namespace of their own (the client's is internal/client/allocnet).
type Networks interface {
	// Setup creates (or, for an alloc set up before a client restart,
	// finds) the alloc's namespace; ok is false for an alloc on the
	// host's network. dir receives resolv.conf and hosts files.
	Setup(ctx context.Context, alloc *structs.Allocation, dir string) (iso *drivers.NetworkIsolation, status *structs.AllocNetworkStatus, ok bool, err error)
	// Teardown removes the alloc's namespace and what the plugins set up
	// for it; an alloc without one is not an error.
	Teardown(ctx context.Context, allocID string) error
}

// networkTimeout bounds one setup or teardown (the CNI plugins run under it).
const networkTimeout = 2 * time.Minute

// setupNetwork runs before any task starts: every task of the alloc joins
// the namespace it makes. A failure fails every task, as Nomad does.
func (r *Runner) setupNetwork() {
	if r.cfg.Network == nil || r.allDead() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), networkTimeout)
	defer cancel()
	iso, status, ok, err := r.cfg.Network.Setup(ctx, r.Alloc(), r.allocDir.Root)
	if err != nil {
		r.logger.Warn("network setup failed", "error", err)
		for _, tr := range r.Tasks() {
			tr.Fail(taskrunner.EventSetupFailure, "failed to set up network: "+err.Error())
		}
		return
	}
	if !ok {
		return
	}
	r.mu.Lock()
	r.network, r.networkStatus = iso, status
	r.mu.Unlock()
}

// teardownNetwork runs once every task is dead.
func (r *Runner) teardownNetwork() {
	if r.cfg.Network == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), networkTimeout)
	defer cancel()
	if err := r.cfg.Network.Teardown(ctx, r.id); err != nil {
		r.logger.Warn("network teardown failed", "error", err)
	}
}

// networkIsolation is what the task runners hand their drivers.
func (r *Runner) networkIsolation() *drivers.NetworkIsolation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.network
}
