package chaos

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/nomad/api"
)

// seqWriter makes one write at a time through the cluster for the whole
// run, each with a short per-request timeout, as an impatient client
// would: its acknowledgements show how long a leader fault stops writes,
// with no load-generator queueing in the figure. It writes a variable (a
// raft write that makes no eval), so it keeps writing while the checks
// wait for the eval queue to drain.
type seqWriter struct {
	h       *harness
	timeout time.Duration
	clients map[*serverProc]*api.Client
	mu      sync.Mutex
	writes  []seqWrite
	done    chan struct{}
	wg      sync.WaitGroup
}

// seqWrite is one write: when it was sent and answered, and whether it was
// acknowledged.
type seqWrite struct {
	sent, answered time.Time
	ok             bool
}

// seqTimeout is the per-request timeout of the sequential writer;
// seqSpacing the pause after each answer (the figures' resolution).
const (
	seqTimeout = 2 * time.Second
	seqSpacing = 20 * time.Millisecond
)

func startSeqWriter(h *harness) *seqWriter {
	w := &seqWriter{h: h, timeout: seqTimeout, clients: map[*serverProc]*api.Client{}, done: make(chan struct{})}
	for _, s := range h.servers {
		w.clients[s], _ = api.NewClient(&api.Config{Address: fmt.Sprintf("http://127.0.0.1:%d", s.httpPort),
			HttpClient: &http.Client{Timeout: w.timeout}})
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.run()
	}()
	return w
}

func (w *seqWriter) run() {
	for i := 1; ; i++ {
		select {
		case <-w.done:
			return
		default:
		}
		srvs := w.h.writable()
		if len(srvs) == 0 {
			time.Sleep(10 * time.Millisecond) // every server down for a moment
			continue
		}
		c := w.clients[srvs[w.h.intn(len(srvs))]]
		sent := time.Now()
		_, _, err := c.Variables().Create(&api.Variable{Path: "chaos/seq-writer", Items: api.VariableItems{"n": fmt.Sprint(i)}}, nil)
		w.mu.Lock()
		w.writes = append(w.writes, seqWrite{sent: sent, answered: time.Now(), ok: err == nil})
		w.mu.Unlock()
		time.Sleep(seqSpacing)
	}
}

func (w *seqWriter) stop() {
	select {
	case <-w.done:
		return
	default:
		close(w.done)
	}
	w.wg.Wait()
}

// afterFault measures a leader fault injected at start with a new leader
// observed at elected: the longest stretch without an acknowledgement from
// start to the first acknowledgement after the election (gap), and how
// far that acknowledgement came after the election (beyond). ok is false
// when no write was acknowledged after the election yet.
func (w *seqWriter) afterFault(start, elected time.Time) (gap, beyond time.Duration, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return faultGap(w.writes, start, elected)
}

// faultGap is afterFault over writes (in the order sent).
func faultGap(writes []seqWrite, start, elected time.Time) (gap, beyond time.Duration, ok bool) {
	last := start
	for _, x := range writes {
		if !x.ok || x.answered.Before(start) {
			continue
		}
		gap = max(gap, x.answered.Sub(last))
		last = x.answered
		if !x.answered.Before(elected) {
			return gap, x.answered.Sub(elected), true
		}
	}
	return gap, 0, false
}

// latencies are the answer times of the acknowledged writes.
func (w *seqWriter) latencies() (acked, failed int, lat []time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range w.writes {
		if x.ok {
			acked++
			lat = append(lat, x.answered.Sub(x.sent))
		} else {
			failed++
		}
	}
	return acked, failed, lat
}
