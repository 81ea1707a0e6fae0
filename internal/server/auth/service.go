package auth

import (
	"context"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/drover-project/drover/internal/clock"
	"github.com/drover-project/drover/internal/state"
	"github.com/drover-project/drover/internal/structs"
)

// Server is what this package needs of the server it runs in: the state
// it reads, raft for its writes, and the other servers of the region (the
// KEK hand-over). Package server implements it with a small adapter.
type Server interface {
	// State is the server's state store (objects read are immutable).
	State() *state.StateStore
	// RaftApply proposes one typed entry and waits until it is applied,
	// returning its raft index or the FSM's error.
	RaftApply(t structs.MessageType, msg any) (uint64, error)
	// Peers lists the region's servers gossip knows; ok is false when the
	// server runs without gossip (then there is nobody to hand the KEK to).
	Peers() (peers []Peer, ok bool)
	// RPC calls method on the server at addr.
	RPC(ctx context.Context, addr, method string, args, reply any) error
}

// Peer is one server of the region as gossip sees it.
type Peer struct {
	ID, Name, RPCAddr string
	Alive             bool
}

// Config is what the server's configuration fixes for this package.
type Config struct {
	ACL ACLConfig
	// Region is the server's region (the KEK hand-over's requests).
	Region string
	// NodeID is this server's raft ID (it needs no KEK from itself).
	NodeID string
	// DataDir holds the KEK (keystore.go); "" in dev mode: the KEK lives
	// in memory only.
	DataDir string
	Clock   clock.Clock
	Logger  *slog.Logger
	// OIDCIssuer is server { oidc_issuer }: the iss of every workload
	// identity and the issuer of /.well-known/openid-configuration; ""
	// leaves iss out and discovery unserved, as in Nomad.
	OIDCIssuer string
}

// Service is a server's ACL resolution and cache, its result filters,
// workload identities, node and server credentials, and the keyring.
type Service struct {
	srv Server
	cfg Config
	log *slog.Logger

	aclCache      aclCache
	internalToken string // see InternalToken

	// keys holds the key-encryption key and unwrapped root keys;
	// kekHolders, on the leader, the servers it handed the KEK to.
	keys       *keystore
	kekHolders kekHolders
	rekeyWake  chan struct{} // wakes the leader's rekeyer (keyring_rekey.go)
	kekWake    chan struct{} // wakes the leader's KEK hand-over (keyring_kek.go)
}

// New builds the service and loads the KEK from cfg.DataDir, if there.
func New(cfg Config, srv Server) (*Service, error) {
	s := &Service{srv: srv, cfg: cfg, log: cfg.Logger, internalToken: uuid.NewString(),
		rekeyWake: make(chan struct{}, 1), kekWake: make(chan struct{}, 1)}
	var err error
	if s.keys, err = newKeystore(cfg.DataDir); err != nil {
		return nil, err
	}
	return s, nil
}

// now is the server's clock reading, used to stamp entries before raft.
func (s *Service) now() time.Time { return s.cfg.Clock.Now() }
