package procutil

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrNoProcess means the PID does not exist (or is a zombie).
var ErrNoProcess = errors.New("no such process")

// Stat is the part of /proc/PID/stat the drivers use.
type Stat struct {
	State     byte
	PGID      int
	UTime     uint64 // clock ticks
	STime     uint64 // clock ticks
	StartTime uint64 // clock ticks since boot: with the PID, a process identity
	RSSPages  uint64
}

// ReadStat parses /proc/PID/stat.
func ReadStat(pid int) (*Stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, ErrNoProcess
	}
	return parseStat(string(b))
}

// parseStat splits after the last ')' because the command name may hold
// spaces and parentheses.
func parseStat(s string) (*Stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return nil, fmt.Errorf("malformed stat line")
	}
	f := strings.Fields(s[i+2:]) // f[0] is field 3 (state)
	if len(f) < 22 {
		return nil, fmt.Errorf("short stat line")
	}
	num := func(idx int) uint64 { n, _ := strconv.ParseUint(f[idx-3], 10, 64); return n }
	return &Stat{
		State:     f[0][0],
		PGID:      int(num(5)),
		UTime:     num(14),
		STime:     num(15),
		StartTime: num(22),
		RSSPages:  num(24),
	}, nil
}

// StartTime returns the process's start time in clock ticks.
func StartTime(pid int) (uint64, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return 0, err
	}
	return st.StartTime, nil
}

// Alive reports whether pid is still the process that started at start
// (a recycled PID has another start time) and has not exited (zombies
// count as exited: only reaping is left).
func Alive(pid int, start uint64) bool {
	st, err := ReadStat(pid)
	if err != nil {
		return false
	}
	return st.StartTime == start && st.State != 'Z' && st.State != 'X'
}
