package drivers

import "os"

// OpenLog opens a task log for appending; an empty path discards output.
// A FIFO is opened the same way (see the package doc).
func OpenLog(path string) (*os.File, error) {
	if path == "" {
		return os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}
