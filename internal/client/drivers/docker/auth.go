package docker

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/distribution/reference"
	credclient "github.com/docker/docker-credential-helpers/client"
	"github.com/docker/docker-credential-helpers/credentials"
	"github.com/moby/moby/api/pkg/authconfig"
	"github.com/moby/moby/api/types/registry"
)

// dockerHubIndex is the key docker login writes for Docker Hub.
const dockerHubIndex = "https://index.docker.io/v1/"

// registryOf is the registry host an image reference pulls from
// ("docker.io" for Docker Hub).
func registryOf(image string) (string, error) {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return "", err
	}
	return reference.Domain(named), nil
}

// registryAuth is the encoded credentials for pulling image: the task's
// auth block, else the plugin's config file (credHelpers, auths,
// credsStore for the image's registry), else the plugin's helper. Empty
// means an anonymous pull.
func registryAuth(image string, task TaskAuth, pc PluginAuth) (string, error) {
	if !task.empty() {
		return authconfig.Encode(registry.AuthConfig{Username: task.Username, Password: task.Password, ServerAddress: task.ServerAddress})
	}
	host, err := registryOf(image)
	if err != nil {
		return "", err
	}
	ac, err := lookupAuth(host, pc)
	if err != nil || ac == nil {
		return "", err
	}
	return authconfig.Encode(*ac)
}

// dockerConfig is the part of a docker config.json the driver reads.
type dockerConfig struct {
	Auths map[string]struct {
		Auth          string `json:"auth"`
		Username      string `json:"username"`
		Password      string `json:"password"`
		IdentityToken string `json:"identitytoken"`
	} `json:"auths"`
	CredHelpers map[string]string `json:"credHelpers"`
	CredsStore  string            `json:"credsStore"`
}

// lookupAuth finds credentials for the registry host, nil when none.
func lookupAuth(host string, pc PluginAuth) (*registry.AuthConfig, error) {
	if pc.Config != "" {
		raw, err := os.ReadFile(pc.Config)
		if err != nil {
			return nil, fmt.Errorf("read docker auth config: %w", err)
		}
		cfg, err := parseDockerConfig(raw)
		if err != nil {
			return nil, fmt.Errorf("docker auth config %s: %w", pc.Config, err)
		}
		if ac, found, err := cfg.lookup(host); found || err != nil {
			return ac, err
		}
	}
	if pc.Helper != "" {
		return fromHelper(pc.Helper, host)
	}
	return nil, nil
}

// parseDockerConfig decodes a docker config.json.
func parseDockerConfig(raw []byte) (*dockerConfig, error) {
	var cfg dockerConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// lookup answers for host from the config: its credential helper, its
// auths entry (keys may carry a scheme and path, as docker login writes
// them), or the default credential store.
func (c *dockerConfig) lookup(host string) (*registry.AuthConfig, bool, error) {
	if h, ok := c.CredHelpers[host]; ok {
		ac, err := fromHelper(h, host)
		return ac, true, err
	}
	for key, e := range c.Auths {
		if registryKey(key) != host {
			continue
		}
		ac := &registry.AuthConfig{Username: e.Username, Password: e.Password, IdentityToken: e.IdentityToken, ServerAddress: key}
		if e.Auth != "" {
			dec, err := base64.StdEncoding.DecodeString(e.Auth)
			if err != nil {
				return nil, true, fmt.Errorf("auths[%q].auth is not base64", key)
			}
			user, pass, ok := strings.Cut(string(dec), ":")
			if !ok {
				return nil, true, fmt.Errorf("auths[%q].auth is not user:password", key)
			}
			ac.Username, ac.Password = user, pass
		}
		return ac, true, nil
	}
	if c.CredsStore != "" {
		ac, err := fromHelper(c.CredsStore, host)
		return ac, ac != nil || err != nil, err
	}
	return nil, false, nil
}

// registryKey is the registry host a config.json key names.
func registryKey(key string) string {
	if key == dockerHubIndex || key == "index.docker.io" || key == "registry-1.docker.io" {
		return "docker.io"
	}
	key = strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
	host, _, _ := strings.Cut(key, "/")
	return host
}

// fromHelper asks docker-credential-<helper> (on PATH) for the host's
// credentials; nil when it has none.
func fromHelper(helper, host string) (*registry.AuthConfig, error) {
	server := host
	if host == "docker.io" {
		server = dockerHubIndex
	}
	creds, err := credclient.Get(credclient.NewShellProgramFunc("docker-credential-"+helper), server)
	if credentials.IsErrCredentialsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("credential helper docker-credential-%s for %s: %w", helper, host, err)
	}
	ac := &registry.AuthConfig{ServerAddress: server, Username: creds.Username, Password: creds.Secret}
	if creds.Username == "<token>" {
		ac.Username, ac.Password, ac.IdentityToken = "", "", creds.Secret
	}
	return ac, nil
}
