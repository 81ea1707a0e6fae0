package taskrunner

import (
	"time"

	"github.com/drover-project/drover/internal/client/logmon"
	"github.com/drover-project/drover/internal/structs"
)

// taskLogs is a task's stdout and stderr capture (see package logmon).
type taskLogs struct {
	rotators []*logmon.Rotator
	tailers  []*logmon.Tailer
}

// startLogs starts copying both streams of task from their live files in
// logDir into rotated files, as the task's logs block says.
func startLogs(logDir, task string, lc *structs.LogConfig, poll time.Duration) (*taskLogs, error) {
	maxFiles, maxMB := 10, 10
	if lc != nil {
		if lc.MaxFiles > 0 {
			maxFiles = lc.MaxFiles
		}
		if lc.MaxFileSizeMB > 0 {
			maxMB = lc.MaxFileSizeMB
		}
	}
	tl := &taskLogs{}
	for _, stream := range []string{logmon.Stdout, logmon.Stderr} {
		r, err := logmon.NewRotator(logDir, logmon.Base(task, stream), maxFiles, int64(maxMB)<<20)
		if err != nil {
			tl.stop()
			return nil, err
		}
		tl.rotators = append(tl.rotators, r)
		t, err := logmon.StartTailer(logmon.LivePath(logDir, task, stream), r, poll)
		if err != nil {
			tl.stop()
			return nil, err
		}
		tl.tailers = append(tl.tailers, t)
	}
	return tl, nil
}

// flush copies everything the task has written so far.
func (tl *taskLogs) flush() {
	if tl == nil {
		return
	}
	for _, t := range tl.tailers {
		_ = t.Flush()
	}
}

// stop flushes and closes; the live files stay for a task that outlives
// this client.
func (tl *taskLogs) stop() { tl.close(false) }

// detach closes without copying what is left, for a task that outlives
// this client: the next client copies it (a shutdown of thousands of
// tasks should not wait for their output).
func (tl *taskLogs) detach() { tl.close(true) }

func (tl *taskLogs) close(detach bool) {
	if tl == nil {
		return
	}
	for _, t := range tl.tailers {
		if detach {
			t.Detach()
		} else {
			t.Stop()
		}
	}
	for _, r := range tl.rotators {
		_ = r.Close()
	}
}
