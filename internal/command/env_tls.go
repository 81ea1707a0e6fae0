package command

import (
	"flag"
	"strconv"

	"github.com/hashicorp/nomad/api"
)

// tlsFlags are Nomad's global TLS flags. Each defaults to its environment
// variable (DROVER_* first, then NOMAD_*), as the official client reads
// them; a flag given on the command line wins over both.
type tlsFlags struct {
	caCert, caPath        string
	clientCert, clientKey string
	serverName            string
	skipVerify            bool
}

func (t *tlsFlags) register(fs *flag.FlagSet, e *env) {
	for _, f := range []struct {
		dst       *string
		name, env string
		usage     string
	}{
		{&t.caCert, "ca-cert", "CACERT", "Path to a PEM CA certificate file to verify the agent's HTTPS certificate"},
		{&t.caPath, "ca-path", "CAPATH", "Path to a directory of PEM CA certificate files to verify the agent's HTTPS certificate"},
		{&t.clientCert, "client-cert", "CLIENT_CERT", "Path to a PEM client certificate for mutual TLS; needs -client-key"},
		{&t.clientKey, "client-key", "CLIENT_KEY", "Path to the PEM private key of -client-cert"},
		{&t.serverName, "tls-server-name", "TLS_SERVER_NAME", "The server name to verify the agent's certificate against (SNI), when it differs from the address's host"},
	} {
		fs.StringVar(f.dst, f.name, e.firstEnv("DROVER_"+f.env, "NOMAD_"+f.env),
			f.usage+" (env DROVER_"+f.env+" or NOMAD_"+f.env+").")
	}
	skip, _ := strconv.ParseBool(e.firstEnv("DROVER_SKIP_VERIFY", "NOMAD_SKIP_VERIFY"))
	fs.BoolVar(&t.skipVerify, "tls-skip-verify", skip,
		"Do not verify the agent's certificate. Insecure: anyone on the path can read and change the traffic (env DROVER_SKIP_VERIFY or NOMAD_SKIP_VERIFY).")
}

// apply sets cfg (which api.DefaultConfig filled from the NOMAD_*
// environment) to the flags, whose defaults are that same environment.
func (t *tlsFlags) apply(cfg *api.TLSConfig) {
	cfg.CACert, cfg.CAPath, cfg.TLSServerName = t.caCert, t.caPath, t.serverName
	cfg.ClientCert, cfg.ClientKey, cfg.Insecure = t.clientCert, t.clientKey, t.skipVerify
}
