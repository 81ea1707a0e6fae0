package client

import (
	"os"
	"path/filepath"

	"github.com/drover-project/drover/internal/structs"
)

// hostVolumes fingerprints the configured host volumes: a volume whose
// path is not an existing directory is left out of the node (and logged),
// so no job is placed where its volume is missing.
func (c *Client) hostVolumes() map[string]*structs.ClientHostVolumeConfig {
	if len(c.cfg.HostVolumes) == 0 {
		return nil
	}
	out := map[string]*structs.ClientHostVolumeConfig{}
	for name, v := range c.cfg.HostVolumes {
		path, err := filepath.Abs(v.Path)
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(path); err == nil && !fi.IsDir() {
				err = os.ErrInvalid
			}
		}
		if err != nil {
			c.logger.Warn("host volume unavailable", "volume", name, "path", v.Path, "error", err)
			continue
		}
		out[name] = &structs.ClientHostVolumeConfig{Name: name, Path: path, ReadOnly: v.ReadOnly}
	}
	return out
}
