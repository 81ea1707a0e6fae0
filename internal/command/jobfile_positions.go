package command

import (
	"regexp"
	"strings"
)

// jobPathRE finds an api path at the start of a problem line ("*
// TaskGroups[0].Tasks[1].Config.imagee: ...").
var jobPathRE = regexp.MustCompile(`^(\s*\*?\s*)((?:TaskGroups|Update|Periodic|Constraints|Affinities|Spreads|Meta|Reschedule|Migrate|ParameterizedJob|UI|Multiregion)[\w\[\].-]*)(:)`)

// atPositions prefixes each problem line that names a path of the job
// with where the HCL file wrote it (the innermost block or attribute
// known), so that a server's refusal points at the file: the server saw
// only the job, the parser kept the positions.
func atPositions(text string, positions map[string]string) string {
	if len(positions) == 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		m := jobPathRE.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		path := line[m[4]:m[5]]
		if pos := positionOf(path, positions); pos != "" {
			lines[i] = line[:m[4]] + pos + ": " + line[m[4]:]
		}
	}
	return strings.Join(lines, "\n")
}

// positionOf is the position of path or of its nearest recorded ancestor.
func positionOf(path string, positions map[string]string) string {
	for p := path; p != ""; {
		if pos, ok := positions[p]; ok {
			return pos
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return ""
}

// atPositions is atPositions on an error's text.
func (e *env) atPositions(err error) error {
	if err == nil || len(e.jobPositions) == 0 {
		return err
	}
	return errorf("%s", atPositions(err.Error(), e.jobPositions))
}
