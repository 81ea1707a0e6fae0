package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/drover-project/drover/internal/client/drivers"
	"github.com/drover-project/drover/internal/clock"
	"github.com/moby/moby/client"
)

// pullReportEvery is how often a pull reports its progress as a task
// event.
const pullReportEvery = 2 * time.Second

// ImageNotFoundError is a Start failure for an image its registry does
// not have (or a local-only image that is missing).
type ImageNotFoundError struct {
	Image    string
	Registry string
	Reason   string
}

func (e *ImageNotFoundError) Error() string {
	return fmt.Sprintf("image %q not found in registry %s: %s", e.Image, e.Registry, e.Reason)
}

// PullError is any other failed pull: wrong credentials, an unreachable
// registry, a timeout. It names the image and the registry.
type PullError struct {
	Image    string
	Registry string
	Err      error
}

func (e *PullError) Error() string {
	return fmt.Sprintf("pull image %q from registry %s: %v", e.Image, e.Registry, e.Err)
}

func (e *PullError) Unwrap() error { return e.Err }

// Causes of a pull cancelled by the driver.
var (
	errPullTimeout  = errors.New("image_pull_timeout reached")
	errPullInactive = errors.New("no progress within pull_activity_timeout")
	errUnauthorized = errors.New("access denied: wrong or missing credentials")
)

// alwaysPull is Nomad's rule: an image without a tag or tagged latest is
// pulled every time (a digest is immutable, so never).
func alwaysPull(image string) bool {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return false
	}
	if _, ok := named.(reference.Digested); ok {
		return false
	}
	tagged, ok := named.(reference.Tagged)
	return !ok || tagged.Tag() == "latest"
}

// ensureImage makes the task's image present, pulling it when missing,
// forced or always pulled, and returns its ID.
func (d *Driver) ensureImage(ctx context.Context, tc *drivers.TaskConfig, cfg *TaskConfig) (string, error) {
	unlock := d.images.lockPull(cfg.Image)
	defer unlock()
	if !cfg.ForcePull && !alwaysPull(cfg.Image) {
		if id, err := d.imageID(ctx, cfg.Image); err == nil {
			return id, nil
		} else if !IsNotFound(err) {
			return "", fmt.Errorf("inspect image %q: %w", cfg.Image, err)
		}
	}
	if err := d.pull(ctx, tc, cfg); err != nil {
		return "", err
	}
	return d.imageID(ctx, cfg.Image)
}

func (d *Driver) imageID(ctx context.Context, image string) (string, error) {
	res, err := d.client.ImageInspect(ctx, image)
	if err != nil {
		return "", err
	}
	return res.ID, nil
}

// pull fetches the image with the task's or the plugin's credentials,
// reporting progress as task events and cancelling on image_pull_timeout
// or after pull_activity_timeout without progress.
func (d *Driver) pull(ctx context.Context, tc *drivers.TaskConfig, cfg *TaskConfig) error {
	host, err := registryOf(cfg.Image)
	if err != nil {
		return &drivers.ConfigError{Field: "image", Reason: fmt.Sprintf("%q is not an image reference: %v", cfg.Image, err)}
	}
	fail := func(err error) error {
		if errors.Is(err, errUnauthorized) || cerrdefs.IsUnauthorized(err) || cerrdefs.IsPermissionDenied(err) || looksUnauthorized(err.Error()) {
			return &PullError{Image: cfg.Image, Registry: host, Err: fmt.Errorf("%w (%v)", errUnauthorized, err)}
		}
		if cerrdefs.IsNotFound(err) || strings.Contains(err.Error(), "manifest unknown") || strings.Contains(err.Error(), "not found") {
			return &ImageNotFoundError{Image: cfg.Image, Registry: host, Reason: err.Error()}
		}
		return &PullError{Image: cfg.Image, Registry: host, Err: err}
	}
	auth, err := registryAuth(cfg.Image, cfg.Auth, d.cfg.Auth)
	if err != nil {
		if !cfg.AuthSoftFail {
			return &PullError{Image: cfg.Image, Registry: host, Err: fmt.Errorf("find credentials: %w", err)}
		}
		d.logger.Warn("registry credentials not found; pulling anonymously (auth_soft_fail)", "image", cfg.Image, "error", err)
		auth = ""
	}
	timeout := cfg.ImagePullTimeout
	if timeout <= 0 {
		timeout = defaultImagePullTimeout
	}
	activity := d.cfg.PullActivityTimeout
	if cfg.PullActivityTimeout > 0 && cfg.PullActivityTimeout < activity {
		activity = cfg.PullActivityTimeout
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deadline := d.clock.AfterFunc(timeout, func() { cancel(errPullTimeout) })
	defer deadline.Stop()
	watchdog := newWatchdog(d.clock, activity, func() { cancel(errPullInactive) })
	defer watchdog.stop()

	tc.EmitEvent("Downloading image " + cfg.Image)
	resp, err := d.client.ImagePull(ctx, cfg.Image, client.ImagePullOptions{RegistryAuth: auth})
	if err != nil {
		return fail(causeOf(ctx, err))
	}
	defer resp.Close()
	layers := map[string][2]int64{} // layer -> current, total
	last := d.clock.Now()
	for msg, err := range resp.JSONMessages(ctx) {
		if err != nil {
			return fail(causeOf(ctx, err))
		}
		if msg.Error != nil {
			return fail(errors.New(msg.Error.Message))
		}
		watchdog.kick()
		if msg.Progress != nil && msg.ID != "" && msg.Status == "Downloading" {
			layers[msg.ID] = [2]int64{msg.Progress.Current, msg.Progress.Total}
		}
		if now := d.clock.Now(); now.Sub(last) >= pullReportEvery && len(layers) > 0 {
			last = now
			tc.EmitEvent(fmt.Sprintf("Image %s pull progress: %s", cfg.Image, progressText(layers)))
		}
	}
	if err := context.Cause(ctx); err != nil {
		return fail(err)
	}
	if len(layers) > 0 {
		tc.EmitEvent(fmt.Sprintf("Downloaded image %s: %s", cfg.Image, progressText(layers)))
	}
	return nil
}

// looksUnauthorized reads the daemon's message: older daemons answer a
// registry's 401 with a plain server error.
func looksUnauthorized(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{"unauthorized", "authentication required", "no basic auth credentials", "access denied", "denied: "} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// causeOf prefers the driver's reason for cancelling over the context
// error it surfaces as.
func causeOf(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && ctx.Err() != nil {
		return c
	}
	return err
}

func progressText(layers map[string][2]int64) string {
	var cur, total int64
	for _, l := range layers {
		cur += l[0]
		total += l[1]
	}
	return fmt.Sprintf("Downloaded %s of %s (%d bytes of %d)", humanBytes(cur), humanBytes(total), cur, total)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// watchdog fires when kick has not been called for a whole period.
type watchdog struct {
	mu     sync.Mutex
	clock  clock.Clock
	period time.Duration
	fire   func()
	timer  clock.Timer
	done   bool
}

func newWatchdog(c clock.Clock, period time.Duration, fire func()) *watchdog {
	w := &watchdog{clock: c, period: period, fire: fire}
	w.kick()
	return w
}

func (w *watchdog) kick() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.timer = w.clock.AfterFunc(w.period, w.fire)
}

func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

// imageRefs counts the tasks on this node that use each image; an image
// no task uses is removed after the plugin's gc image_delay (unless a
// task takes it again meanwhile).
type imageRefs struct {
	d *Driver

	mu      sync.Mutex
	users   map[string]map[string]struct{} // image ID -> task IDs
	pending map[string]clock.Timer         // image ID -> scheduled removal
	pulls   map[string]*pullLock           // image ref -> pull in progress
}

type pullLock struct {
	sync.Mutex
	waiters int
}

func newImageRefs(d *Driver) *imageRefs {
	return &imageRefs{d: d, users: map[string]map[string]struct{}{}, pending: map[string]clock.Timer{}, pulls: map[string]*pullLock{}}
}

// lockPull serialises pulls of one reference, so tasks starting together
// pull it once.
func (r *imageRefs) lockPull(image string) func() {
	r.mu.Lock()
	l := r.pulls[image]
	if l == nil {
		l = &pullLock{}
		r.pulls[image] = l
	}
	l.waiters++
	r.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		r.mu.Lock()
		if l.waiters--; l.waiters == 0 {
			delete(r.pulls, image)
		}
		r.mu.Unlock()
	}
}

// acquire records that task uses the image, cancelling its removal.
func (r *imageRefs) acquire(imageID, taskID string) {
	if imageID == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.pending[imageID]; ok {
		t.Stop()
		delete(r.pending, imageID)
	}
	if r.users[imageID] == nil {
		r.users[imageID] = map[string]struct{}{}
	}
	r.users[imageID][taskID] = struct{}{}
}

// release drops the task's use; the last one schedules the removal.
func (r *imageRefs) release(imageID, taskID string) {
	if imageID == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	users := r.users[imageID]
	if _, ok := users[taskID]; !ok {
		return
	}
	delete(users, taskID)
	if len(users) > 0 {
		return
	}
	delete(r.users, imageID)
	if !r.d.cfg.GC.Image {
		return
	}
	r.pending[imageID] = r.d.clock.AfterFunc(r.d.cfg.GC.ImageDelay, func() { r.remove(imageID) })
}

// users of an image now (tests).
func (r *imageRefs) count(imageID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.users[imageID])
}

func (r *imageRefs) remove(imageID string) {
	r.mu.Lock()
	if _, ok := r.pending[imageID]; !ok || len(r.users[imageID]) > 0 {
		r.mu.Unlock()
		return
	}
	delete(r.pending, imageID)
	r.mu.Unlock()
	_, err := r.d.client.ImageRemove(context.Background(), imageID, client.ImageRemoveOptions{Force: true, PruneChildren: true})
	switch {
	case err == nil:
		r.d.logger.Info("removed unused image", "image", imageID)
	case IsNotFound(err):
	default:
		// In use by a container this driver does not track, for one.
		r.d.logger.Warn("unused image not removed", "image", imageID, "error", err)
	}
}
