package taskrunner

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/drover-project/drover/internal/client/allocdir"
	"github.com/drover-project/drover/internal/client/drivers/mock"
	"github.com/drover-project/drover/internal/client/state"
	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/structs"
	"github.com/drover-project/drover/internal/testutil"
)

// fakeSigner signs "<identity>-<n>" tokens, n counting the signatures of
// that identity, expiring TTL after the clock's now.
type fakeSigner struct {
	clk   clock.Clock
	task  *structs.Task
	mu    sync.Mutex
	count map[string]int
}

func (f *fakeSigner) sign(_ context.Context, reqs []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]structs.SignedWorkloadIdentity, 0, len(reqs))
	for _, r := range reqs {
		w := f.task.IdentityNamed(r.Identity)
		if w == nil {
			return nil, fmt.Errorf("no identity %q", r.Identity)
		}
		f.count[r.Identity]++
		s := structs.SignedWorkloadIdentity{WorkloadIdentityRequest: r, JWT: fmt.Sprintf("%s-%d", r.Identity, f.count[r.Identity])}
		if w.TTL > 0 {
			s.Expiration = f.clk.Now().Add(w.TTL)
		}
		out = append(out, s)
	}
	return out, nil
}

func (f *fakeSigner) signed(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[name]
}

// startIdentityTask runs a long-running mock task with identities on a
// manual clock.
func startIdentityTask(t *testing.T, task *structs.Task) (*TaskRunner, *recDriver, *clock.Manual, *fakeSigner, string) {
	t.Helper()
	task.Name, task.Driver = "web", mock.Name
	task.Config = map[string]any{"run_for": "1h"}
	task.LogConfig = &structs.LogConfig{Disabled: true}
	job := &structs.Job{ID: "j", Name: "j", Type: structs.JobTypeService,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{task}}}}
	alloc := &structs.Allocation{ID: "alloc-1", Name: "j.g[0]", TaskGroup: "g", Job: job}
	ad := allocdir.New(t.TempDir(), alloc.ID)
	clk := clock.NewManual(time.Unix(1_800_000_000, 0))
	signer := &fakeSigner{clk: clk, task: task, count: map[string]int{}}
	rec := &recDriver{Driver: mock.NewWithClock(nil)}
	tr := New(Config{Alloc: alloc, Task: task, AllocDir: ad, Drivers: oneDriver{rec}, Region: "global", Clock: clk,
		Identities: signer.sign, Node: func() *structs.Node { return &structs.Node{ID: "n1"} },
		Logger: slog.New(slog.DiscardHandler)})
	go tr.Run()
	t.Cleanup(func() {
		tr.Kill(NewEvent(clk.Now(), EventKilling, "test over"))
		<-tr.Done()
	})
	testutil.WaitFor(t, 10*time.Second, "the task running", func() bool { return tr.State().State == structs.TaskStateRunning })
	return tr, rec, clk, signer, ad.TaskDir(task.Name).Dir
}

// armed waits until the renewal waits on the manual clock (the only
// user of it here: the mock driver runs on the real one), so an Advance
// reaches it.
func armed(t *testing.T, clk *clock.Manual) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "the renewal waiting on the clock", func() bool { return clk.Pending() > 0 })
}

func readToken(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIdentityRenewal_ChangeModes: identities with a TTL are renewed
// once half the shortest TTL has passed (on the injected clock), all
// together; their files are rewritten; change_mode signal sends
// change_signal, restart restarts the task with the new tokens in its
// env, noop only replaces the token. Identities without a TTL are not
// renewed.
func TestIdentityRenewal_ChangeModes(t *testing.T) {
	t.Run("signal", func(t *testing.T) {
		task := &structs.Task{
			Identity: &structs.WorkloadIdentity{Env: true, File: true, Filepath: "local/tok"},
			Identities: []*structs.WorkloadIdentity{
				{Name: "vault", Audience: []string{"vault.io"}, File: true, Env: true, TTL: 10 * time.Minute,
					ChangeMode: structs.WIChangeModeSignal, ChangeSignal: "SIGHUP"},
				{Name: "cloud", Audience: []string{"sts.example.com"}, File: true, TTL: time.Hour},
			},
		}
		tr, rec, clk, signer, dir := startIdentityTask(t, task)
		if got := readToken(t, filepath.Join(dir, "local", "tok")); got != "default-1" {
			t.Fatalf("default identity at its filepath = %q", got)
		}
		if got := readToken(t, filepath.Join(dir, "secrets", "nomad_vault.jwt")); got != "vault-1" {
			t.Fatalf("secrets/nomad_vault.jwt = %q", got)
		}
		env := rec.last().Env
		if env["NOMAD_TOKEN"] != "default-1" || env["NOMAD_TOKEN_vault"] != "vault-1" {
			t.Fatalf("env: NOMAD_TOKEN=%q NOMAD_TOKEN_vault=%q", env["NOMAD_TOKEN"], env["NOMAD_TOKEN_vault"])
		}
		if _, ok := env["NOMAD_TOKEN_cloud"]; ok {
			t.Fatal("cloud has env = false but is in the env")
		}
		// Just before half the shortest TTL nothing is renewed.
		armed(t, clk)
		clk.Advance(5*time.Minute - time.Second)
		if n := signer.signed("vault"); n != 1 {
			t.Fatalf("renewed before half its TTL: %d signatures", n)
		}
		clk.Advance(time.Second)
		testutil.WaitFor(t, 10*time.Second, "the renewed token written", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "secrets", "nomad_vault.jwt"))
			return string(b) == "vault-2"
		})
		testutil.WaitFor(t, 10*time.Second, "SIGHUP sent", func() bool {
			return slices.Equal(rec.Signals(tr.taskID), []string{"SIGHUP"})
		})
		if got := readToken(t, filepath.Join(dir, "secrets", "nomad_cloud.jwt")); got != "cloud-2" {
			t.Fatalf("identities are renewed together; cloud = %q", got)
		}
		if n := signer.signed("default"); n != 1 {
			t.Fatalf("the default identity has no TTL but was signed %d times", n)
		}
		if tr.State().Restarts != 0 {
			t.Fatal("change_mode signal restarted the task")
		}
	})
	t.Run("restart", func(t *testing.T) {
		task := &structs.Task{Identities: []*structs.WorkloadIdentity{
			{Name: "db", Audience: []string{"db"}, Env: true, TTL: time.Minute, ChangeMode: structs.WIChangeModeRestart},
		}}
		tr, rec, clk, _, _ := startIdentityTask(t, task)
		armed(t, clk)
		clk.Advance(30 * time.Second)
		testutil.WaitFor(t, 10*time.Second, "the task restarted with the new token", func() (bool, string) {
			got := rec.last().Env["NOMAD_TOKEN_db"]
			return got == "db-2" && tr.State().State == structs.TaskStateRunning, got
		})
		if len(rec.Signals(tr.taskID)) != 0 {
			t.Fatal("change_mode restart sent a signal")
		}
	})
	t.Run("noop", func(t *testing.T) {
		task := &structs.Task{Identities: []*structs.WorkloadIdentity{
			{Name: "db", Audience: []string{"db"}, File: true, Env: true, TTL: time.Minute},
		}}
		tr, rec, clk, signer, dir := startIdentityTask(t, task)
		armed(t, clk)
		clk.Advance(30 * time.Second)
		testutil.WaitFor(t, 10*time.Second, "the renewed token written", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, "secrets", "nomad_db.jwt"))
			return string(b) == "db-2"
		})
		// A second renewal half a TTL later.
		armed(t, clk)
		clk.Advance(30 * time.Second)
		testutil.WaitFor(t, 10*time.Second, "the second renewal", func() bool { return signer.signed("db") == 3 })
		if tr.State().Restarts != 0 || len(rec.Signals(tr.taskID)) != 0 || rec.last().Env["NOMAD_TOKEN_db"] != "db-1" {
			t.Fatalf("noop acted: restarts=%d signals=%v", tr.State().Restarts, rec.Signals(tr.taskID))
		}
	})
}

// TestIdentityPath_StaysInTheTaskDir: a filepath may not leave the task
// dir.
func TestIdentityPath_StaysInTheTaskDir(t *testing.T) {
	ad := allocdir.New(t.TempDir(), "a")
	td := ad.TaskDir("t")
	for _, tc := range []struct {
		w    *structs.WorkloadIdentity
		want string
		bad  bool
	}{
		{w: &structs.WorkloadIdentity{}, want: filepath.Join(td.SecretsDir, "nomad_token")},
		{w: &structs.WorkloadIdentity{Name: "vault"}, want: filepath.Join(td.SecretsDir, "nomad_vault.jwt")},
		{w: &structs.WorkloadIdentity{Name: "vault", Filepath: "local/v.jwt"}, want: filepath.Join(td.Dir, "local", "v.jwt")},
		{w: &structs.WorkloadIdentity{Name: "vault", Filepath: "../../etc/passwd"}, bad: true},
	} {
		got, err := identityPath(td, tc.w)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("%+v: got %q, %v", tc.w, got, err)
		}
	}
}

// A template watcher's blocking reads use the task's identity as it is
// when they run: after a renewal of a default identity with a TTL, the
// watch re-reads with the new token, not the one the render had.
func TestTemplateWatchReadsWithTheRenewedIdentity(t *testing.T) {
	data := &fakeData{vars: map[string]map[string]string{"nomad/jobs/app": {"k": "v"}}}
	current := "default-1"
	rd := newDataReader(context.Background(), data, "", "default")
	rd.current = func() string { return current }
	if _, err := renderTemplate(t.TempDir(), &structs.Template{EmbeddedTmpl: `{{ with nomadVar "nomad/jobs/app" }}{{ .k }}{{ end }}`, DestPath: "out"},
		nil, NewInterpolator(nil, nil, ""), rd); err != nil {
		t.Fatal(err)
	}
	current = "default-2"
	deps := rd.dependencies()
	if len(deps) != 1 {
		t.Fatalf("deps: %d", len(deps))
	}
	if _, err := deps[0].block(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(data.tokens, []string{"default-1", "default-2"}) {
		t.Fatalf("tokens read with: %v", data.tokens)
	}
}

// A task re-attached by a new task runner (a client restart) gets its
// identities signed again and their renewal resumed: the earlier
// runner's tokens were in its memory only.
func TestIdentityRenewal_ResumesAfterReattach(t *testing.T) {
	task := &structs.Task{Identities: []*structs.WorkloadIdentity{
		{Name: "db", Audience: []string{"db"}, File: true, TTL: time.Minute},
	}}
	tr, rec, clk, signer, dir := startIdentityTask(t, task)
	tr.mu.Lock()
	h := tr.handle
	tr.mu.Unlock()
	st := tr.State()
	tr.Shutdown()
	<-tr.Done()

	tr2 := New(Config{Alloc: tr.cfg.Alloc, Task: task, AllocDir: tr.cfg.AllocDir, Drivers: oneDriver{rec}, Region: "global", Clock: clk,
		Identities: signer.sign, Node: tr.cfg.Node, Logger: slog.New(slog.DiscardHandler),
		Restore: &state.TaskRecord{State: st, Handle: h}})
	go tr2.Run()
	t.Cleanup(func() {
		tr2.Kill(NewEvent(clk.Now(), EventKilling, "test over"))
		<-tr2.Done()
	})
	testutil.WaitFor(t, 10*time.Second, "re-signed on re-attach", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "secrets", "nomad_db.jwt"))
		return string(b) == "db-2"
	})
	// The earlier runner's timer may still sit on the clock; step it until
	// the new runner's renewal has run.
	testutil.AdvanceUntil(t, clk, 30*time.Second, 10*time.Second, "renewed by the new runner", func() bool {
		return signer.signed("db") >= 3
	})
	testutil.WaitFor(t, 10*time.Second, "the renewed token written", func() (bool, string) {
		b, _ := os.ReadFile(filepath.Join(dir, "secrets", "nomad_db.jwt"))
		return string(b) == fmt.Sprintf("db-%d", signer.signed("db")), string(b)
	})
}

// TestIdentityBackoff: the wait after each failed renewal in a row
// doubles from 5 s up to 2 min, and never passes the renewal interval
// (nor falls under 5 s with a shorter one).
func TestIdentityBackoff(t *testing.T) {
	for _, tc := range []struct {
		failures int
		every    time.Duration
		want     time.Duration
	}{
		{1, 5 * time.Minute, 5 * time.Second},
		{2, 5 * time.Minute, 10 * time.Second},
		{3, 5 * time.Minute, 20 * time.Second},
		{5, 5 * time.Minute, 80 * time.Second},
		{6, 5 * time.Minute, 2 * time.Minute},
		{1000, 5 * time.Minute, 2 * time.Minute},
		{3, 30 * time.Second, 20 * time.Second},
		{4, 30 * time.Second, 30 * time.Second},
		{9, 30 * time.Second, 30 * time.Second},
		{1, time.Second, 5 * time.Second},
		{4, time.Second, 5 * time.Second},
	} {
		if got := identityBackoff(tc.failures, tc.every); got != tc.want {
			t.Errorf("identityBackoff(%d, %v) = %v, want %v", tc.failures, tc.every, got, tc.want)
		}
	}
}

// TestIdentityRenewal_FailuresBackOff: a renewal the server keeps
// refusing is retried after 5 s, then 10, 20, 40, 80 s and then every
// 2 min (not every 5 s forever); the first success renews the files and
// the next failure starts again at 5 s. All on the injected clock.
func TestIdentityRenewal_FailuresBackOff(t *testing.T) {
	task := &structs.Task{Identities: []*structs.WorkloadIdentity{
		{Name: "db", Audience: []string{"db"}, File: true, TTL: 10 * time.Minute},
	}}
	task.Name, task.Driver = "web", mock.Name
	task.Config = map[string]any{"run_for": "1h"}
	task.LogConfig = &structs.LogConfig{Disabled: true}
	job := &structs.Job{ID: "j", Name: "j", Type: structs.JobTypeService,
		TaskGroups: []*structs.TaskGroup{{Name: "g", Tasks: []*structs.Task{task}}}}
	alloc := &structs.Allocation{ID: "alloc-1", Name: "j.g[0]", TaskGroup: "g", Job: job}
	ad := allocdir.New(t.TempDir(), alloc.ID)
	clk := clock.NewManual(time.Unix(1_800_000_000, 0))
	signer := &fakeSigner{clk: clk, task: task, count: map[string]int{}}
	var mu sync.Mutex
	failing, attempts := false, 0
	sign := func(ctx context.Context, reqs []structs.WorkloadIdentityRequest) ([]structs.SignedWorkloadIdentity, error) {
		mu.Lock()
		attempts++
		fail := failing
		mu.Unlock()
		if fail {
			return nil, fmt.Errorf("server unreachable")
		}
		return signer.sign(ctx, reqs)
	}
	tries := func() int { mu.Lock(); defer mu.Unlock(); return attempts }
	setFailing := func(f bool) { mu.Lock(); failing = f; mu.Unlock() }
	tr := New(Config{Alloc: alloc, Task: task, AllocDir: ad, Drivers: oneDriver{&recDriver{Driver: mock.NewWithClock(nil)}},
		Region: "global", Clock: clk, Identities: sign, Node: func() *structs.Node { return &structs.Node{ID: "n1"} },
		Logger: slog.New(slog.DiscardHandler)})
	go tr.Run()
	t.Cleanup(func() {
		tr.Kill(NewEvent(clk.Now(), EventKilling, "test over"))
		<-tr.Done()
	})
	testutil.WaitFor(t, 10*time.Second, "the task running", func() bool { return tr.State().State == structs.TaskStateRunning })
	dir := ad.TaskDir(task.Name).Dir

	// step advances the clock by d, checking that nothing is tried a
	// nanosecond before, and waits for the attempt it brings.
	step := func(d time.Duration) {
		t.Helper()
		armed(t, clk)
		before := tries()
		clk.Advance(d - time.Nanosecond)
		if clk.Pending() != 1 || tries() != before {
			t.Fatalf("retried before %v had passed", d)
		}
		clk.Advance(time.Nanosecond)
		testutil.WaitFor(t, 10*time.Second, fmt.Sprintf("the attempt after %v", d), func() bool { return tries() == before+1 })
	}
	setFailing(true)
	step(5 * time.Minute) // the renewal, refused
	for _, d := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		2 * time.Minute, 2 * time.Minute} {
		step(d)
	}
	setFailing(false)
	step(2 * time.Minute)
	testutil.WaitFor(t, 10*time.Second, "the renewed token written", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "secrets", "nomad_db.jwt"))
		return string(b) == "db-2"
	})
	// Success resets the backoff: the next renewal is half a TTL later,
	// and its first retry 5 s after it.
	setFailing(true)
	step(5 * time.Minute)
	step(5 * time.Second)
}
