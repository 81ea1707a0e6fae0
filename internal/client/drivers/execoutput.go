package drivers

import (
	"bytes"
	"sync"
)

// CappedOutput collects an exec session's stdout and stderr for a caller
// that wants the text (script checks, change scripts): safe for the two
// streams' concurrent writes, it keeps the first Limit bytes and drops the
// rest without failing the write, so a chatty command neither grows the
// client's memory nor sees a broken pipe.
type CappedOutput struct {
	Limit int

	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *CappedOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.Limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// String is what was kept.
func (b *CappedOutput) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
