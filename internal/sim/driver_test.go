package sim

import (
	"strings"
	"testing"
)

// playHCL parses and plays a scenario given as HCL.
func playHCL(t *testing.T, src string) *Result {
	t.Helper()
	sc, err := ParseScenario([]byte(src), "test.hcl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// playPassing plays an HCL scenario that must pass, and fails the test
// with its failures and transcript otherwise.
func playPassing(t *testing.T, src string) {
	t.Helper()
	if res := playHCL(t, src); !res.Passed() {
		t.Fatalf("failures %q\n%s", res.Failures, res.Transcript())
	}
}

// TestPlay_StepExpectationsAreChecked checks that a step's expectation
// that does not hold fails the scenario, whatever else the step does: the
// driver must carry on to the check after each kind of operation.
func TestPlay_StepExpectationsAreChecked(t *testing.T) {
	const nodesAndJob = `
seed = 1
node "n" {
  count = 3
}
job "web" {
  count = 2
}
`
	// One alloc-count expectation that cannot hold: web runs 2 or 3.
	const wrong = `
  expect {
    allocs {
      job   = "web"
      count = 7
    }
  }
`
	cases := []struct{ name, step string }{
		{"plain step", ``},
		{"drain with a deadline", `drain_deadline = { n-1 = "1m" }`},
		{"scale", `scale = { web = 3 }`},
		{"leader change", `leader_change = true`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := playHCL(t, nodesAndJob+"at \"10s\" {\n"+tc.step+"\n"+wrong+"}\n")
			if res.Passed() || len(res.Failures) != 1 || !strings.HasPrefix(res.Failures[0], "at 10s: ") {
				t.Fatalf("failures %q, want the step's expectation to fail", res.Failures)
			}
		})
	}
	t.Run("scenario expectation", func(t *testing.T) {
		res := playHCL(t, nodesAndJob+"expect {\n  since = \"0s\"\n  allocs {\n    job = \"web\"\n    count = 7\n  }\n}\n")
		if res.Passed() || len(res.Failures) != 1 || !strings.HasPrefix(res.Failures[0], "end: ") {
			t.Fatalf("failures %q, want the scenario's expectation to fail", res.Failures)
		}
	})
}

// TestPlay_StepRunsEveryOperation checks that the operations after a
// drain with a deadline, a scale or a leader change in the same step
// still run.
func TestPlay_StepRunsEveryOperation(t *testing.T) {
	for _, op := range []string{`drain_deadline = { n-1 = "1m" }`, `scale = { web = 3 }`, `leader_change = true`} {
		t.Run(op, func(t *testing.T) {
			res := playHCL(t, `
seed = 1
node "n" {
  count = 3
}
job "web" {
  count = 2
}
at "10s" {
  `+op+`
  stop = ["web"]
}
expect {
  allocs {
    job     = "web"
    desired = "run"
    count   = 0
  }
}
`)
			if !res.Passed() {
				t.Fatalf("failures %q: the stop after %s did not run", res.Failures, op)
			}
		})
	}
}

// TestPlay_GroupMembers checks that one member of a deferred node group
// and of a deferred job group can be added by its own name.
func TestPlay_GroupMembers(t *testing.T) {
	playPassing(t, `
seed = 1
node "a" {}
node "w" {
  count    = 3
  deferred = true
}
job "j" {
  replicas = 2
  deferred = true
}
at "5s" {
  add_nodes = ["w-2"]
  register  = ["j-1"]
  expect {
    allocs {
      count = 1
    }
  }
}
at "10s" {
  register = ["j-2"]
  drain    = ["a"]
}
expect {
  allocs {
    job     = "j-1"
    node    = "w-2"
    desired = "run"
    count   = 1
  }
  allocs {
    job     = "j-2"
    node    = "w-2"
    desired = "run"
    count   = 1
  }
}
`)
}

func TestExpand(t *testing.T) {
	cases := []struct {
		name string
		n    int
		want string
	}{
		{"a", 0, "a"},
		{"a", 1, "a"},
		{"a", 3, "a-1 a-2 a-3"},
		{"a", 10, "a-01 a-02 a-03 a-04 a-05 a-06 a-07 a-08 a-09 a-10"},
	}
	for _, tc := range cases {
		if got := strings.Join(expand(tc.name, tc.n), " "); got != tc.want {
			t.Errorf("expand(%q, %d) = %q, want %q", tc.name, tc.n, got, tc.want)
		}
	}
}

// TestSortedSteps_EqualTimesKeepTheirOrder checks that steps at the same
// time run in the order the scenario wrote them.
func TestSortedSteps_EqualTimesKeepTheirOrder(t *testing.T) {
	sc := &Scenario{Steps: []Step{
		{At: 20, Register: []string{"late"}},
		{At: 10, Register: []string{"first"}},
		{At: 10, Register: []string{"second"}},
		{At: 10, Register: []string{"third"}},
	}}
	var got []string
	for _, st := range sc.sortedSteps() {
		got = append(got, st.Register[0])
	}
	if strings.Join(got, " ") != "first second third late" {
		t.Fatalf("order %v", got)
	}
}

// TestPlay_DeferredGroupsAddedWhole checks that naming a deferred node
// group or job group adds every member.
func TestPlay_DeferredGroupsAddedWhole(t *testing.T) {
	playPassing(t, `
seed = 1
node "w" {
  count    = 2
  deferred = true
}
job "j" {
  replicas       = 2
  deferred       = true
  count          = 2
  distinct_hosts = true
}
at "5s" {
  add_nodes = ["w"]
  register  = ["j"]
}
expect {
  allocs {
    job     = "j-1"
    desired = "run"
    count   = 2
  }
  allocs {
    job     = "j-2"
    desired = "run"
    count   = 2
  }
}
`)
}

// TestPlay_DeploymentFailsAtItsProgressDeadline checks the deadlines the
// driver gives an update block: a rollout whose allocs never report health
// fails once the 10 minute progress deadline passes (the watcher writes one
// eval, which finds the rollout ended), and not before.
func TestPlay_DeploymentFailsAtItsProgressDeadline(t *testing.T) {
	playPassing(t, `
seed = 3
node "n" {
  count = 2
}
job "doomed" {
  count  = 2
  health = "none"
  update {
    max_parallel = 1
  }
}
at "10s" {
  update = ["doomed"]
}
at "10m" {
  expect {
    since = "10s"
    evals {
      trigger = "deployment-watcher"
      count   = 0
    }
  }
}
at "11m" {}
expect {
  since = "10s"
  evals {
    trigger = "deployment-watcher"
    count   = 1
  }
  allocs {
    job     = "doomed"
    desired = "run"
    count   = 2
  }
}
`)
}

// TestPlay_PlacementSettings checks that a scenario's node datacenter and
// pool and a job's datacenters and constraints (operator "=" when none is
// given) reach the scheduler.
func TestPlay_PlacementSettings(t *testing.T) {
	playPassing(t, `
seed = 2
node "a" {
  meta = { rack = "r1" }
}
node "b" {
  meta = { rack = "r2" }
}
node "c" {
  meta = { rack = "r1" }
  pool = "other"
}
node "d" {
  meta       = { rack = "r2" }
  datacenter = "dc2"
}
job "on-r1" {
  count = 3
  constraint {
    attribute = "meta.rack"
    value     = "r1"
  }
}
job "not-r1" {
  count = 3
  constraint {
    attribute = "meta.rack"
    operator  = "!="
    value     = "r1"
  }
}
job "in-dc2" {
  count       = 2
  datacenters = ["dc2"]
}
expect {
  allocs {
    job   = "on-r1"
    node  = "a"
    count = 3
  }
  allocs {
    job   = "not-r1"
    node  = "b"
    count = 3
  }
  allocs {
    job   = "in-dc2"
    node  = "d"
    count = 2
  }
  allocs {
    node  = "c"
    count = 0
  }
}
`)
}

// TestPlay_IneligibleNodeGetsNoPlacements checks that the scenario's
// ineligible and eligible operations reach the server: a job registered
// while a node is ineligible avoids it, one registered after it is
// eligible again may use it. (Within one step, register runs before
// ineligible, so they are separate steps.)
func TestPlay_IneligibleNodeGetsNoPlacements(t *testing.T) {
	playPassing(t, `
seed = 4
node "a" {}
node "b" {}
job "first" {
  count    = 2
  deferred = true
}
job "second" {
  count          = 2
  distinct_hosts = true
  deferred       = true
}
at "3s" {
  ineligible = ["a"]
}
at "5s" {
  register = ["first"]
}
at "8s" {
  eligible = ["a"]
}
at "10s" {
  register = ["second"]
}
expect {
  allocs {
    job   = "first"
    node  = "b"
    count = 2
  }
  allocs {
    job   = "second"
    node  = "a"
    count = 1
  }
}
`)
}

func TestDiffLines(t *testing.T) {
	cases := []struct {
		name  string
		a, b  []string
		limit int
		want  string
	}{
		{"same", []string{"x", "y"}, []string{"x", "y"}, 10, ""},
		{"changed line", []string{"x", "y"}, []string{"x", "z"}, 10, "line 2:\n- y\n+ z"},
		{"line added", []string{"x"}, []string{"x", "y"}, 10, "line 2:\n- \n+ y"},
		{"line removed", []string{"x", "y"}, []string{"x"}, 10, "line 2:\n- y\n+ "},
		{"limit", []string{"a", "b", "c"}, []string{"1", "2", "3"}, 2, "line 1:\n- a\n+ 1\nline 2:\n- b\n+ 2\n..."},
	}
	for _, tc := range cases {
		if got := diffLines(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
