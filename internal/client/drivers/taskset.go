package drivers

import (
	"sync"
	"syscall"
)

// TaskSet is a driver's tasks by ID, safe for concurrent use. The zero
// value is empty and ready.
type TaskSet[T any] struct {
	mu sync.Mutex
	m  map[string]T
}

// Get returns the task, or ErrTaskNotFound.
func (s *TaskSet[T]) Get(id string) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.m[id]
	if !ok {
		var zero T
		return zero, ErrTaskNotFound
	}
	return t, nil
}

// Add registers the task unless the ID is taken (ErrTaskExists).
func (s *TaskSet[T]) Add(id string, t T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; ok {
		return ErrTaskExists
	}
	if s.m == nil {
		s.m = map[string]T{}
	}
	s.m[id] = t
	return nil
}

// Remove forgets the task.
func (s *TaskSet[T]) Remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

// WithSignal returns the task and the parsed signal: the start of every
// driver's Stop and Signal.
func (s *TaskSet[T]) WithSignal(id, signal string) (T, syscall.Signal, error) {
	t, err := s.Get(id)
	if err != nil {
		return t, 0, err
	}
	sig, err := ParseSignal(signal)
	return t, sig, err
}
