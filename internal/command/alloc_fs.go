package command

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hashicorp/nomad/api"
)

func init() {
	register("alloc fs", allocFSCmd)
	register("alloc checks", allocChecksCmd)
}

func allocFSCmd() *cmd {
	var stat, follow, tail, machine, jobFlag bool
	var lines, bytes int64
	c := &cmd{
		Name: "alloc fs", Args: "<alloc> [<path>]", MinArgs: 1, MaxArgs: 2,
		Synopsis: "Inspect the contents of an allocation directory",
		Help: "Lists a directory of the allocation (the root by default) or prints a file. -stat shows a " +
			"path's metadata; -tail prints the end of a file (-n lines or -c bytes) and -f keeps streaming " +
			"what is appended. With -job the first argument is a job ID and one of its running allocations " +
			"is used. Needs read-fs in the allocation's namespace.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&machine, "H", false, "Print sizes in bytes instead of human units.")
		fs.BoolVar(&jobFlag, "job", false, "Treat the first argument as a job ID.")
		fs.BoolVar(&stat, "stat", false, "Show the path's file information instead of its contents.")
		fs.BoolVar(&follow, "f", false, "Keep printing what is appended to the file.")
		fs.BoolVar(&tail, "tail", false, "Print the end of the file (with -n or -c; 10 lines by default).")
		fs.Int64Var(&lines, "n", -1, "With -tail, the number of lines from the end.")
		fs.Int64Var(&bytes, "c", -1, "With -tail, the number of bytes from the end.")
	}
	c.Run = func(e *env, args []string) error {
		var a *api.Allocation
		var err error
		if jobFlag {
			a, err = e.firstRunningAllocOf(args[0])
		} else {
			a, err = e.fetchAlloc(args[0])
		}
		if err != nil {
			return err
		}
		path := "/"
		if len(args) == 2 {
			path = args[1]
		}
		cl, _ := e.api()
		info, _, err := cl.AllocFS().Stat(a, path, e.query())
		if err != nil {
			return apiError("reading "+path+" of allocation "+a.ID, err)
		}
		size := func(n int64) string {
			if machine {
				return fmt.Sprint(n)
			}
			return humanBytes(n)
		}
		row := func(f *api.AllocFileInfo) []string {
			name := f.Name
			if f.IsDir {
				name += "/"
			}
			return []string{f.FileMode, size(f.Size), f.ModTime.UTC().Format("01/02/06 15:04:05 UTC"), name}
		}
		header := []string{"Mode", "Size", "Modified Time", "Name"}
		if stat {
			writeColumns(e.stdout, [][]string{header, row(info)})
			return nil
		}
		if info.IsDir {
			files, _, err := cl.AllocFS().List(a, path, e.query())
			if err != nil {
				return apiError("listing "+path+" of allocation "+a.ID, err)
			}
			rows := [][]string{header}
			for _, f := range files {
				rows = append(rows, row(f))
			}
			writeColumns(e.stdout, rows)
			return nil
		}
		if !tail && !follow {
			r, err := cl.AllocFS().Cat(a, path, e.query())
			if err != nil {
				return apiError("reading "+path+" of allocation "+a.ID, err)
			}
			defer r.Close()
			_, err = io.Copy(e.stdout, r)
			return err
		}
		offset := tailOffset(tail, lines, bytes, info.Size)
		if !follow {
			r, err := cl.AllocFS().ReadAt(a, path, info.Size-offset, offset, e.query())
			if err != nil {
				return apiError("reading "+path+" of allocation "+a.ID, err)
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			if bytes < 0 {
				b = lastLines(b, orDefault(lines, 10))
			}
			_, err = e.stdout.Write(b)
			return err
		}
		return e.streamFile(a, path, info.Size-offset, tail && bytes < 0, orDefault(lines, 10))
	}
	return c
}

// tailOffset is how many bytes from the end to start at: -c bytes, else
// room for -n lines (10 by default) at a generous line length; the lines
// themselves are cut after reading. Without -tail, the whole file.
func tailOffset(tail bool, lines, bytes, size int64) int64 {
	off := size
	switch {
	case !tail:
	case bytes >= 0:
		off = bytes
	default:
		if lines < 0 {
			lines = 10
		}
		off = lines * 256
	}
	return min(off, size)
}

func orDefault(n, def int64) int64 {
	if n < 0 {
		return def
	}
	return n
}

// streamFile prints path from offset (the first frame cut to its last n
// lines when cutLines) and what is appended, until interrupted.
func (e *env) streamFile(a *api.Allocation, path string, offset int64, cutLines bool, n int64) error {
	cl, _ := e.api()
	cancel := make(chan struct{})
	defer close(cancel)
	frames, errs := cl.AllocFS().Stream(a, path, api.OriginStart, offset, cancel, e.query())
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	var head []byte // the first read, cut to n lines before printing
	cutting := cutLines
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				return e.flushTail(&head, cutting, n)
			}
			if len(f.Data) == 0 {
				continue
			}
			if cutting {
				head = append(head, f.Data...)
				if err := e.flushTail(&head, true, n); err != nil {
					return err
				}
				cutting = false
				continue
			}
			if _, err := e.stdout.Write(f.Data); err != nil {
				return err
			}
		case err := <-errs:
			return apiError("reading "+path+" of allocation "+a.ID, err)
		case <-interrupt:
			return nil
		}
	}
}

func (e *env) flushTail(head *[]byte, cut bool, n int64) error {
	b := *head
	*head = nil
	if cut {
		b = lastLines(b, n)
	}
	_, err := e.stdout.Write(b)
	return err
}

// lastLines keeps the last n lines of b (a trailing newline ends the last).
func lastLines(b []byte, n int64) []byte {
	s := string(b)
	trimmed := strings.TrimSuffix(s, "\n")
	idx := len(trimmed)
	for i := int64(0); i < n; i++ {
		j := strings.LastIndexByte(trimmed[:idx], '\n')
		if j < 0 {
			return b
		}
		idx = j
	}
	return b[idx+1:]
}

// humanBytes is a size as Nomad's fs listing shows it (4.0 KiB, 24 B).
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func allocChecksCmd() *cmd {
	var jobFlag bool
	c := &cmd{
		Name: "alloc checks", Args: "<alloc>", MinArgs: 1, MaxArgs: 1, Read: true,
		Synopsis: "Outputs service health check status information",
		Help:     "Shows the latest result of each Nomad service check of the allocation. Needs read-job.",
	}
	c.Flags = func(fs *flag.FlagSet) {
		fs.BoolVar(&jobFlag, "job", false, "Treat the argument as a job ID and use one of its running allocations.")
	}
	c.Run = func(e *env, args []string) error {
		var a *api.Allocation
		var err error
		if jobFlag {
			a, err = e.firstRunningAllocOf(args[0])
		} else {
			a, err = e.fetchAlloc(args[0])
		}
		if err != nil {
			return err
		}
		cl, _ := e.api()
		checks, err := cl.Allocations().Checks(a.ID, e.query())
		if err != nil {
			return apiError("reading the checks of allocation "+a.ID, err)
		}
		return e.output(checks, func() error {
			fmt.Fprintf(e.stdout, "Status of %d Nomad Service Checks\n", len(checks))
			for _, id := range sortedKeys(checks) {
				ch := checks[id]
				task := ch.Task
				if task == "" {
					task = "(group)"
				}
				fmt.Fprintln(e.stdout)
				writeKV(e.stdout, [][2]string{
					{"ID", id}, {"Name", ch.Check}, {"Group", ch.Group}, {"Task", task}, {"Service", ch.Service},
					{"Status", ch.Status}, {"StatusCode", fmt.Sprint(ch.StatusCode)}, {"Mode", ch.Mode},
					{"Timestamp", e.when(time.Unix(ch.Timestamp, 0))}, {"Output", ch.Output},
				})
			}
			return nil
		})
	}
	return c
}
