package taskrunner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template/parse"
)

// MaxTemplateBytes caps a rendered template, and every string a template
// function builds on the way: a template is job input, and without a cap
// a 75-byte template wrote 300 MB into the task dir.
const MaxTemplateBytes = 10 << 20

var errTemplateTooLarge = fmt.Errorf("output larger than %d bytes", MaxTemplateBytes)

// capWriter fails the render once more than limit bytes are written, so
// text/template stops executing.
type capWriter struct {
	w     io.Writer
	left  int
	limit int
}

func newCapWriter(w io.Writer) *capWriter {
	return &capWriter{w: w, left: MaxTemplateBytes, limit: MaxTemplateBytes}
}

func (c *capWriter) Write(p []byte) (int, error) {
	if len(p) > c.left {
		return 0, errTemplateTooLarge
	}
	c.left -= len(p)
	return c.w.Write(p)
}

// MaxTemplateListLen caps the lists split builds and a literal range
// count; MaxTemplateRangeDepth caps how deep ranges nest. A range that
// writes nothing never meets the output cap, so the loops themselves are
// bounded: at most 100,000^2 iterations.
const (
	MaxTemplateListLen    = 100_000
	MaxTemplateRangeDepth = 2
)

// splitCapped is split refusing more than MaxTemplateListLen elements.
func splitCapped(sep, s string) ([]string, error) {
	if n := strings.Count(s, sep) + 1; sep == "" && len(s) > MaxTemplateListLen || sep != "" && n > MaxTemplateListLen {
		return nil, fmt.Errorf("split would make more than %d elements", MaxTemplateListLen)
	}
	return strings.Split(s, sep), nil
}

// checkTemplateLoops refuses ranges nested deeper than
// MaxTemplateRangeDepth and ranges over an integer literal above
// MaxTemplateListLen ({{ range 1000000000 }}).
func checkTemplateLoops(node parse.Node, depth int) error {
	switch n := node.(type) {
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkTemplateLoops(c, depth); err != nil {
				return err
			}
		}
	case *parse.RangeNode:
		if depth+1 > MaxTemplateRangeDepth {
			return fmt.Errorf("ranges nest deeper than %d", MaxTemplateRangeDepth)
		}
		if err := checkRangeCount(n.Pipe); err != nil {
			return err
		}
		if err := checkTemplateLoops(n.List, depth+1); err != nil {
			return err
		}
		return checkTemplateLoops(n.ElseList, depth)
	case *parse.IfNode:
		if err := checkTemplateLoops(n.List, depth); err != nil {
			return err
		}
		return checkTemplateLoops(n.ElseList, depth)
	case *parse.WithNode:
		if err := checkTemplateLoops(n.List, depth); err != nil {
			return err
		}
		return checkTemplateLoops(n.ElseList, depth)
	}
	return nil
}

func checkRangeCount(pipe *parse.PipeNode) error {
	if pipe == nil {
		return nil
	}
	for _, cmd := range pipe.Cmds {
		for _, arg := range cmd.Args {
			if num, ok := arg.(*parse.NumberNode); ok && num.IsInt && num.Int64 > MaxTemplateListLen {
				return fmt.Errorf("range over %d is more than %d iterations", num.Int64, MaxTemplateListLen)
			}
		}
	}
	return nil
}

// replaceAllCapped is replaceAll refusing results over the cap, computed
// before the string is built.
func replaceAllCapped(from, to, s string) (string, error) {
	if n := strings.Count(s, from); n > 0 && len(to) > len(from) {
		if grow := n * (len(to) - len(from)); grow/n != len(to)-len(from) || len(s)+grow > MaxTemplateBytes {
			return "", errTemplateTooLarge
		}
	}
	return strings.ReplaceAll(s, from, to), nil
}

// joinCapped is join refusing results over the cap.
func joinCapped(sep string, l []string) (string, error) {
	total := len(sep) * max(len(l)-1, 0)
	for _, e := range l {
		total += len(e)
		if total > MaxTemplateBytes {
			return "", errTemplateTooLarge
		}
	}
	return strings.Join(l, sep), nil
}

// readCapped reads a file of at most MaxTemplateBytes.
func readCapped(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxTemplateBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > MaxTemplateBytes {
		return "", errors.New("file larger than the template size cap")
	}
	return string(b), nil
}
