package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sorted []float64
		want   float64
	}{
		{"none", nil, 0},
		{"one", []float64{7}, 7},
		{"odd count takes the middle", []float64{1, 5, 100}, 5},
		{"even count averages the middle two", []float64{1, 4, 6, 100}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := median(tc.sorted); got != tc.want {
				t.Fatalf("median(%v) = %v, want %v", tc.sorted, got, tc.want)
			}
		})
	}
}

func TestBench_CountMustBePositive(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runBench([]string{"-count", "0"}, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "-count") || stdout.Len() != 0 {
		t.Fatalf("stderr %q, stdout %q: want an error naming -count and no table", stderr.String(), stdout.String())
	}
}

func TestBench_MedianRowFollowsTheRuns(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runBench([]string{"-quick", "-scenario", "a", "-nodes", "100", "-count", "3"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 5 { // header, three runs, the median
		t.Fatalf("got %d lines, want 5:\n%s", len(lines), stdout.String())
	}
	last := lines[4]
	if !strings.Contains(last, "median of 3") || strings.Count(strings.SplitN(last, "rates ", 2)[1], ",") != 2 {
		t.Fatalf("last row %q: want the median of 3 runs with their 3 rates", last)
	}
}

// -cpuprofile-placing writes a profile of the placing window; with
// -cpuprofile too (Go has one CPU profile at a time) the bench refuses to
// start.
func TestBench_PlacingProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "placing.prof")
	var stdout, stderr bytes.Buffer
	if code := runBench([]string{"-quick", "-scenario", "a", "-nodes", "100", "-cpuprofile-placing", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("profile %s: %v (want a non-empty file)", path, err)
	}
	stdout.Reset()
	stderr.Reset()
	if code := runBench([]string{"-cpuprofile", path + "2", "-cpuprofile-placing", path}, &stdout, &stderr); code != 2 {
		t.Fatalf("both profiles: exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "one CPU profile") || stdout.Len() != 0 {
		t.Fatalf("stderr %q, stdout %q: want the refusal and no table", stderr.String(), stdout.String())
	}
}

// Options that shape one kind of scenario are refused, by name, for a
// scenario they would not change, before the table starts.
func TestBench_ScenarioOptionsRefusedElsewhere(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "a", "-read-gzip"}, "-read-gzip and -read-page"},
		{[]string{"-scenario", "r,a", "-read-page", "10"}, "-read-gzip and -read-page"},
		{[]string{"-scenario", "r", "-read-page", "-1"}, "-read-page"},
		{[]string{"-scenario", "r", "-cpuprofile-placing", filepath.Join(t.TempDir(), "p")}, "-cpuprofile-placing"},
		{[]string{"-scenario", "g", "-cpuprofile-placing", filepath.Join(t.TempDir(), "p")}, "-cpuprofile-placing"},
	} {
		var stdout, stderr bytes.Buffer
		if code := runBench(append([]string{"-quick", "-nodes", "50"}, tc.args...), &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tc.args, code, stderr.String())
			continue
		}
		if !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
			t.Errorf("%v: stderr %q, stdout %q: want a refusal naming %s and no table", tc.args, stderr.String(), stdout.String(), tc.want)
		}
	}
}
