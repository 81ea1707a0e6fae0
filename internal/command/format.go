package command

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// writeColumns prints rows as left-aligned columns separated by two
// spaces, measuring in runes so the chain view's box characters align.
// Trailing spaces are trimmed so output diffs cleanly.
func writeColumns(w io.Writer, rows [][]string) {
	widths := map[int]int{}
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// writeKV prints "Key = Value" lines with the '=' aligned, as Nomad's
// detail views do.
func writeKV(w io.Writer, pairs [][2]string) {
	width := 0
	for _, p := range pairs {
		width = max(width, utf8.RuneCountInString(p[0]))
	}
	for _, p := range pairs {
		pad := strings.Repeat(" ", width-utf8.RuneCountInString(p[0]))
		fmt.Fprintln(w, strings.TrimRight(p[0]+pad+" = "+p[1], " "))
	}
}

// heading prints a blank line and a section title.
func heading(w io.Writer, title string) { fmt.Fprintf(w, "\n%s\n", title) }

// short shortens an ID to 8 characters unless -verbose.
func (e *env) short(id string) string {
	if e.verbose || len(id) <= 8 {
		return id
	}
	return id[:8]
}

// when formats a time relative to now, or absolute with -abs-time.
func (e *env) when(t time.Time) string {
	if t.IsZero() {
		return "<none>"
	}
	if e.absTime {
		return e.absTimeFmt(t)
	}
	return e.relTime(t)
}

// whenNanos formats a unix-nanosecond timestamp, as evals and allocs carry.
func (e *env) whenNanos(ns int64) string {
	if ns == 0 {
		return "<none>"
	}
	return e.when(time.Unix(0, ns))
}

func absoluteTime(t time.Time) string { return t.Local().Format(time.RFC3339) }

// relativeTime says how long ago (or from now) t is, in at most two units.
func relativeTime(t time.Time) string {
	d := now().Sub(t)
	if d < 0 {
		return "in " + roughDuration(-d)
	}
	return roughDuration(d) + " ago"
}

// roughDuration rounds d to its two largest units: "4m12s", "3h5m", "2d4h".
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return twoUnits(d, time.Minute, "m", time.Second, "s")
	case d < 24*time.Hour:
		return twoUnits(d, time.Hour, "h", time.Minute, "m")
	}
	return twoUnits(d, 24*time.Hour, "d", time.Hour, "h")
}

func twoUnits(d, big time.Duration, bs string, small time.Duration, ss string) string {
	b, s := d/big, (d%big)/small
	if s == 0 {
		return fmt.Sprintf("%d%s", b, bs)
	}
	return fmt.Sprintf("%d%s%d%s", b, bs, s, ss)
}

// shortDuration prints step durations of the eval timeline compactly:
// "850µs", "12ms", "1.2s", "4m12s".
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return roughDuration(d)
}

// orNone shows empty values as Nomad does.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefInt(i *int) int {
	if i == nil {
		return 0
	}
	return *i
}

func derefBool(b *bool) bool { return b != nil && *b }
