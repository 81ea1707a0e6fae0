package drivers

import (
	"errors"
	"testing"
)

func TestTaskSet(t *testing.T) {
	var s TaskSet[string]
	if _, err := s.Get("a"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("get from empty set: %v", err)
	}
	if err := s.Add("a", "task-a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("a", "again"); !errors.Is(err, ErrTaskExists) {
		t.Fatalf("duplicate add: %v", err)
	}
	if got, err := s.Get("a"); err != nil || got != "task-a" {
		t.Fatalf("get: %q %v", got, err)
	}
	s.Remove("a")
	if _, err := s.Get("a"); !errors.Is(err, ErrTaskNotFound) {
		t.Fatalf("after remove: %v", err)
	}
}
