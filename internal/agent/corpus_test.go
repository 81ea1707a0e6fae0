package agent

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/jobspec"
	"github.com/drover-project/drover/internal/jobspec/fields"
)

// corpusExpect is what a corpus file's "# expect:" lines say of it.
type corpusExpect struct {
	accept bool
	refuse []string // what each refusal names, one per refused field
	warn   []string
}

func readExpect(t *testing.T, src string) corpusExpect {
	var e corpusExpect
	for _, line := range strings.Split(src, "\n") {
		rest, ok := strings.CutPrefix(line, "# expect: ")
		if !ok {
			continue
		}
		verb, arg, _ := strings.Cut(rest, " ")
		switch verb {
		case "accept":
			e.accept = true
		case "refuse":
			e.refuse = append(e.refuse, arg)
		case "warn":
			e.accept = true
			e.warn = append(e.warn, arg)
		default:
			t.Fatalf("bad expect line %q", line)
		}
	}
	if e.accept == (len(e.refuse) > 0) {
		t.Fatalf("a corpus file must expect accept/warn or refusals, not both or neither")
	}
	return e
}

// TestCorpus_EveryJobRunsOrIsRefusedNamingEveryField runs the job files of
// testdata/corpus (written from Nomad's documented job shapes: web with a
// Consul-style service, bridge networking, template delimiters, GPU,
// periodic, parameterized, system, sysbatch, CSI, Vault, docker auth,
// spread/affinity, canaries, migrate, reschedule/restart, artifacts,
// lifecycle sidecars, constraint operators, ...) through Drover's parser
// and a real in-process agent. Each is either registered with nothing
// refused (the field contract holds for every field it sets, and its read
// back registers again), or refused with one error per unsupported field,
// at its file:line:col when the parser refuses it, in the 400 when the
// server does. None is accepted with a field dropped.
func TestCorpus_EveryJobRunsOrIsRefusedNamingEveryField(t *testing.T) {
	_, c := testAgent(t, nil)
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.nomad.hcl"))
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus: %d files (%v), want at least 20", len(files), err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := readExpect(t, string(src))
			job, warns, perr := jobspec.Parse(path, src, jobspec.ParseOptions{Env: []string{}})
			var problems []string
			var reg *api.JobRegisterResponse
			if perr != nil {
				var jerr *jobspec.Error
				if !errors.As(perr, &jerr) {
					t.Fatalf("parse: %v", perr)
				}
				for _, d := range jerr.Diagnostics() {
					if !strings.HasPrefix(d.Pos, path+":") {
						t.Errorf("refusal without file:line:col: %+v", d)
					}
					problems = append(problems, d.Pos+": "+d.Summary+": "+d.Detail)
				}
				// The same job sent as JSON (what the parser would have
				// built) is refused by the server naming the same fields.
				lenient, _, err := jobspec.Parse(path, src, jobspec.ParseOptions{Env: []string{}, AllowUnsupported: true})
				if err != nil {
					t.Fatalf("lenient parse: %v", err)
				}
				_, _, rerr := c.Jobs().Register(lenient, nil)
				for _, w := range want.refuse {
					if strings.HasSuffix(w, " block") { // the lenient parser dropped the block itself
						continue
					}
					if rerr == nil || !strings.Contains(rerr.Error(), w) {
						t.Errorf("register of the JSON job: %v, want a 400 naming %s", rerr, w)
					}
				}
			} else {
				reg, _, err = c.Jobs().Register(job, nil)
				if err != nil {
					var resp api.UnexpectedResponseError
					if !errors.As(err, &resp) || resp.StatusCode() != http.StatusBadRequest {
						t.Fatalf("register = %v, want success or a 400", err)
					}
					for _, line := range strings.Split(resp.Body(), "\n") {
						if b, ok := strings.CutPrefix(line, "* "); ok {
							problems = append(problems, b)
						}
					}
					if len(problems) == 0 { // one problem: no bullet list
						problems = append(problems, strings.TrimSpace(resp.Body()))
					}
				}
			}

			if want.accept {
				if len(problems) > 0 {
					t.Fatalf("refused, want accepted:\n%s", strings.Join(problems, "\n"))
				}
				if refused, _ := fields.Check(job); len(refused) > 0 {
					t.Fatalf("accepted with refused fields: %v", refused)
				}
				for _, w := range want.warn {
					if !strings.Contains(reg.Warnings, w) || !warned(warns, w) {
						t.Errorf("warning naming %s: register %q, parser %v", w, reg.Warnings, warns)
					}
				}
				back, _, err := c.Jobs().Info(*job.ID, nil)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := c.Jobs().Register(back, nil); err != nil {
					t.Fatalf("the job read back does not register again: %v", err)
				}
				return
			}
			if len(problems) != len(want.refuse) {
				t.Errorf("%d refusals, want one per unsupported field (%d):\n%s", len(problems), len(want.refuse), strings.Join(problems, "\n"))
			}
			for _, w := range want.refuse {
				found := false
				for _, p := range problems {
					found = found || strings.Contains(p, w)
				}
				if !found {
					t.Errorf("no refusal names %s:\n%s", w, strings.Join(problems, "\n"))
				}
			}
		})
	}
}

func warned(ws []jobspec.Warning, what string) bool {
	for _, w := range ws {
		if strings.Contains(w.Message, what) || strings.Contains(w.Message, strings.ToLower(what)) {
			return true
		}
	}
	return false
}
