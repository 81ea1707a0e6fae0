package client

import (
	"github.com/drover-project/drover/internal/client/fingerprint"
)

// fingerprintLoop fingerprints the machine again every interval and has
// the node registered again when anything the servers care about changed
// (fingerprint.Diff ignores drifting values such as free disk).
func (c *Client) fingerprintLoop() {
	for {
		if alive, _ := c.sleep(c.cfg.FingerprintInterval, nil); !alive {
			return
		}
		fp, err := c.fingerprint()
		if err != nil {
			c.logger.Warn("fingerprint failed", "error", err)
			continue
		}
		c.mu.Lock()
		changed := fingerprint.Diff(c.fp, fp)
		c.fp = fp
		if changed {
			c.node = c.buildNode(fp)
		}
		c.mu.Unlock()
		if changed {
			c.logger.Info("fingerprint changed; registering the node again")
			select {
			case c.reregisterCh <- struct{}{}:
			default:
			}
		}
	}
}
