// Package benchentries reads raft command entries captured from a drover
// bench run (internal/fsm/testdata/bench-entries.bin.gz), which the FSM's
// apply benchmark replays and the plan-results decoder's tests hold to
// the codec. The file is gzip'd; inside, each entry is its 8-byte
// big-endian raft index, a 4-byte big-endian length, and that many bytes
// of the entry (its message type byte first).
package benchentries

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Entry is one captured command entry.
type Entry struct {
	Index uint64 // the raft index it was committed at
	Data  []byte // the entry: message type byte, then the payload
}

// Read reads every entry of the file at path.
func Read(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for len(raw) > 0 {
		if len(raw) < 12 {
			return nil, fmt.Errorf("%s: %d bytes left, short of an entry's header", path, len(raw))
		}
		index, n := binary.BigEndian.Uint64(raw), binary.BigEndian.Uint32(raw[8:])
		if n == 0 || uint64(len(raw)-12) < uint64(n) {
			return nil, fmt.Errorf("%s: entry at index %d claims %d bytes, %d left", path, index, n, len(raw)-12)
		}
		out = append(out, Entry{Index: index, Data: raw[12 : 12+n]})
		raw = raw[12+n:]
	}
	return out, nil
}
