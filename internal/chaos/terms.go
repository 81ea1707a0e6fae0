package chaos

import (
	"sync"
	"time"
)

// termWatch samples every server's raft term and role every 50 ms and
// remembers which servers claimed leadership in each term.
type termWatch struct {
	mu      sync.Mutex
	leaders map[uint64]map[string]bool
	done    chan struct{}
	wg      sync.WaitGroup
}

func watchTerms(servers []*serverProc) *termWatch {
	w := &termWatch{leaders: map[uint64]map[string]bool{}, done: make(chan struct{})}
	for _, s := range servers {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for {
				select {
				case <-w.done:
					return
				case <-time.After(50 * time.Millisecond):
				}
				if !s.running() {
					continue
				}
				term, state, _, err := s.raftState()
				if err != nil || state != "Leader" {
					continue
				}
				w.mu.Lock()
				if w.leaders[term] == nil {
					w.leaders[term] = map[string]bool{}
				}
				w.leaders[term][s.name] = true
				w.mu.Unlock()
			}
		}()
	}
	return w
}

// violations counts terms in which two servers claimed leadership.
func (w *termWatch) violations() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, names := range w.leaders {
		if len(names) > 1 {
			n++
		}
	}
	return n
}

func (w *termWatch) stop() {
	select {
	case <-w.done:
		return
	default:
		close(w.done)
	}
	w.wg.Wait()
}
