package command

// Commands of Nomad CE that drover has on purpose and refuses, each with
// the reason it prints: the feature they drive does not exist in Drover
// (docs/compat.md). They exit 1 without calling the agent, so a script
// written for Nomad fails loudly instead of half-working.
var refusedCommands = map[string]string{
	"volume claim delete":        noVolumes,
	"volume claim list":          noVolumes,
	"volume create":              noVolumes,
	"volume delete":              noVolumes,
	"volume deregister":          noVolumes,
	"volume detach":              noVolumes,
	"volume init":                noVolumes,
	"volume register":            noVolumes,
	"volume snapshot create":     noVolumes,
	"volume snapshot delete":     noVolumes,
	"volume snapshot list":       noVolumes,
	"volume status":              noVolumes,
	"plugin status":              "Drover has no CSI or device plugins",
	"setup consul":               "Drover integrates with neither Consul nor Vault (services and variables are native)",
	"setup vault":                "Drover integrates with neither Consul nor Vault (services and variables are native)",
	"scaling policy info":        noScalingPolicies,
	"scaling policy list":        noScalingPolicies,
	"operator raft info":         noOfflineRaft,
	"operator raft logs":         noOfflineRaft,
	"operator raft state":        noOfflineRaft,
	"operator client-state":      "Drover's client state is its own bbolt format; read it with the agent stopped only through the agent itself",
	"operator snapshot redact":   "Drover snapshots hold no Nomad-format secrets to redact; protect the file instead",
	"operator snapshot state":    "use `drover operator snapshot inspect` (Drover's snapshot format is not Nomad's)",
	"system reconcile summaries": "Drover computes job summaries from the state on every read; there is nothing to reconcile",
}

const (
	noVolumes         = "Drover has no CSI or dynamic host volume API; declare host volumes in the client config (client { host_volume ... })"
	noScalingPolicies = "Drover does not store scaling policies (there is no autoscaler API); use `drover job scale`"
	noOfflineRaft     = "Drover does not read raft data offline; use `drover operator raft list-peers` and `drover operator snapshot save` against a running server"
)

func init() {
	for name, reason := range refusedCommands {
		register(name, refusedCmd(name, reason))
	}
}

func refusedCmd(name, reason string) func() *cmd {
	return func() *cmd {
		return &cmd{
			Name: name, Args: "[...]", MinArgs: 0, MaxArgs: -1,
			Synopsis: "Not supported by Drover: " + reason,
			Help:     "This Nomad command exists in drover only to say why it is refused: " + reason + ".",
			Run: func(e *env, args []string) error {
				return errorf("drover %s is not supported: %s", name, reason)
			},
		}
	}
}
