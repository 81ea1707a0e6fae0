package exec

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

// escapeEnv makes the test binary try a double-chroot escape and print
// the host file it names (see TestMain).
const escapeEnv = "DROVER_TEST_CHROOT_ESCAPE"

// chrootEscape is the classic escape: chroot into a subdir while the cwd
// stays outside it, walk up to the real root, chroot there.
func chrootEscape(hostFile string) {
	_ = os.MkdirAll("/tmp/jail", 0o755)
	if err := chroot("/tmp/jail"); err != nil {
		os.Stdout.WriteString("escape failed: " + err.Error() + "\n")
		os.Exit(0)
	}
	for i := 0; i < 64; i++ {
		_ = os.Chdir("..")
	}
	if err := chroot("."); err != nil {
		os.Stdout.WriteString("escape failed: " + err.Error() + "\n")
		os.Exit(0)
	}
	b, err := os.ReadFile(hostFile)
	if err != nil {
		os.Stdout.WriteString("escape failed: " + err.Error() + "\n")
		os.Exit(0)
	}
	os.Stdout.Write(b)
	os.Exit(0)
}

func stdout(t *testing.T, task *drivers.TaskConfig) string {
	t.Helper()
	b, _ := os.ReadFile(task.StdoutPath)
	return string(b)
}

func TestTaskRunsAsNobodyByDefault(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh("id -u; echo hi > /local/own && echo shared > /alloc/x && echo ok"))
	if res := run(t, d, task); res.ExitCode != 0 {
		b, _ := os.ReadFile(task.StderrPath)
		t.Fatalf("exit = %+v, stderr %s", res, b)
	}
	if got := stdout(t, task); got != "65534\nok\n" {
		t.Fatalf("stdout = %q, want uid 65534 (nobody) and writable task dirs", got)
	}
}

func TestMknodFails(t *testing.T) {
	d := newDriver(t)
	task := newTask(t, "web", sh("mknod /tmp/mem c 1 1 && echo made; ls -l /tmp"))
	run(t, d, task)
	if strings.Contains(stdout(t, task), "made") {
		t.Fatalf("mknod succeeded: %s", stdout(t, task))
	}
}

// Even a task the operator allows to run as root gets no CAP_MKNOD and no
// CAP_SYS_CHROOT, and cannot regain them.
func TestRootTaskHasNoMknodOrSysAdmin(t *testing.T) {
	d := newDriver(t)
	d.cfg.User = UserPolicy{Allowlist: []string{"root"}}
	task := newTask(t, "web", sh("grep CapBnd /proc/self/status; mknod /tmp/mem c 1 1 && echo made"))
	task.User = "root"
	run(t, d, task)
	out := stdout(t, task)
	if strings.Contains(out, "made") {
		t.Fatalf("mknod succeeded as root: %s", out)
	}
	var bnd uint64
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "CapBnd:"); ok {
			fmtSscan(t, strings.TrimSpace(v), &bnd)
		}
	}
	for name, n := range map[string]int{"sys_admin": 21, "mknod": 27, "sys_chroot": 18, "net_raw": 13} {
		if bnd&(1<<n) != 0 {
			t.Errorf("bounding set %x holds %s", bnd, name)
		}
	}
	if bnd&(1<<0) == 0 { // chown is in the default set
		t.Errorf("bounding set %x lacks chown", bnd)
	}
}

func TestDoubleChrootEscapeCannotReadHostFile(t *testing.T) {
	d := newDriver(t)
	secret := filepath.Join(t.TempDir(), "host-secret")
	if err := os.WriteFile(secret, []byte("HOST-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, user := range []string{"", "root"} {
		t.Run("user="+user, func(t *testing.T) {
			d.cfg.User = UserPolicy{Allowlist: []string{"root"}}
			task := newTask(t, "web", map[string]any{"command": "/local/escape"})
			task.User = user
			copyFile(t, mustExecutable(t), filepath.Join(task.TaskDir.LocalDir, "escape"))
			task.Env = map[string]string{escapeEnv: secret}
			run(t, d, task)
			out := stdout(t, task)
			if strings.Contains(out, "HOST-SECRET") || !strings.Contains(out, "escape failed") {
				t.Fatalf("escape output: %q", out)
			}
		})
	}
}

func TestTaskUserPolicy(t *testing.T) {
	cases := []struct {
		name    string
		policy  UserPolicy
		user    string
		want    string
		wantErr string
	}{
		{"default is nobody", UserPolicy{}, "", "nobody", ""},
		{"root denied by default", UserPolicy{}, "root", "", "denylist"},
		{"uid 0 denied by default", UserPolicy{}, "0", "", "denylist"},
		{"other users allowed by default", UserPolicy{}, "daemon", "daemon", ""},
		{"allowlist keeps others out", UserPolicy{Allowlist: []string{"daemon"}}, "bin", "", "allowlist"},
		{"allowlist admits root", UserPolicy{Allowlist: []string{"root"}}, "root", "root", ""},
		{"denylist by uid", UserPolicy{Denylist: []string{"1"}}, "daemon", "", "denylist"},
		{"unknown user", UserPolicy{}, "no-such-user-xyz", "", "no-such-user-xyz"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.policy.taskUser(tc.user)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("taskUser(%q) = %q, %v; want error with %q", tc.user, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("taskUser(%q) = %q, %v; want %q", tc.user, got, err, tc.want)
			}
		})
	}
}

func TestTaskCaps(t *testing.T) {
	if got, _ := taskCaps(DefaultAllowCaps, nil, []string{"CAP_CHOWN"}); len(got) != len(DefaultAllowCaps)-1 {
		t.Fatalf("cap_drop: %v", got)
	}
	if _, err := taskCaps(DefaultAllowCaps, []string{"sys_admin"}, nil); err == nil {
		t.Fatal("cap_add of sys_admin outside allow_caps accepted")
	}
	if got, err := taskCaps([]string{"all"}, []string{"sys_admin"}, nil); err != nil || !strings.Contains(strings.Join(got, ","), "sys_admin") {
		t.Fatalf("allow_caps all + cap_add: %v %v", got, err)
	}
	if _, err := New(map[string]any{"allow_caps": []any{"bogus"}}, drivers.Env{}); err == nil {
		t.Fatal("unknown capability in allow_caps accepted")
	}
	if _, err := New(map[string]any{"user": map[string]any{"allowlist": []any{"www"}}}, drivers.Env{}); err != nil {
		t.Fatalf("user block: %v", err)
	}
}

func mustExecutable(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}
