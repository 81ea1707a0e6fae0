// Package idfile keeps a UUID identity in a file: a server's raft ID, a
// client's node ID and secret. Both sides use it, so it imports nothing of
// theirs.
package idfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// LoadOrCreate returns the UUID stored in dir/name, creating a random one
// on first use. The new file is written then renamed into place, so a
// crash never leaves a half-written identity.
func LoadOrCreate(dir, name string) (string, error) {
	p := filepath.Join(dir, name)
	raw, err := os.ReadFile(p)
	if err == nil {
		id := strings.TrimSpace(string(raw))
		if _, perr := uuid.Parse(id); perr != nil {
			return "", fmt.Errorf("%s: not a UUID: %q", p, id)
		}
		return id, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	id := uuid.NewString()
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, []byte(id+"\n"), 0o600); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", err
	}
	return id, nil
}
