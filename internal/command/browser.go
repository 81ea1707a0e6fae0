package command

import (
	"fmt"
	"os/exec"
)

// openBrowser opens url with $BROWSER, else xdg-open, else says how.
func openBrowser(e *env, url string) error {
	browser := e.getenv("BROWSER")
	if browser == "" {
		if _, err := exec.LookPath("xdg-open"); err != nil {
			fmt.Fprintln(e.stderr, "No browser found ($BROWSER unset, no xdg-open): open the URL yourself")
			return nil
		}
		browser = "xdg-open"
	}
	return exec.Command(browser, url).Start()
}
