package server

import (
	"fmt"
	"slices"
	"sync"
)

// goGroup runs named goroutines and waits for them, and can say which
// are still running: a shutdown that takes too long names what it waits
// for (Server.Waiting).
type goGroup struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	running map[string]int // name -> goroutines of that name running
}

// Go runs fn on a goroutine counted under name.
func (g *goGroup) Go(name string, fn func()) {
	g.mu.Lock()
	if g.running == nil {
		g.running = map[string]int{}
	}
	g.running[name]++
	g.mu.Unlock()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.done(name)
		fn()
	}()
}

func (g *goGroup) done(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running[name]--; g.running[name] == 0 {
		delete(g.running, name)
	}
}

// Wait waits for every goroutine started with Go.
func (g *goGroup) Wait() { g.wg.Wait() }

// Running names the goroutines still running, sorted ("name" or "name
// xN" for N of them).
func (g *goGroup) Running() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.running))
	for name, n := range g.running {
		if n > 1 {
			name = fmt.Sprintf("%s x%d", name, n)
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
