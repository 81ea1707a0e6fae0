package command

import (
	"fmt"
	"os/exec"
)

// openBrowser opens url with e.openURL when set (tests), else $BROWSER,
// else xdg-open, else says how.
func openBrowser(e *env, url string) error {
	if e.openURL != nil {
		return e.openURL(url)
	}
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
