package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/serf/serf"

	"github.com/drover-project/drover/internal/structs"
)

// kekPushInterval paces the leader's hand-over of the KEK to servers that
// do not hold it yet.
const kekPushInterval = 2 * time.Second

// kekRetryFirst is the first retry after a server refused the KEK.
const kekRetryFirst = 50 * time.Millisecond

// kekHolders remembers, on the leader, which servers took the KEK.
type kekHolders struct {
	mu   sync.Mutex
	have map[string]bool // server ID -> holds it
}

// pushKEK is a leader duty: every server of the region that gossips but
// has not taken the KEK is handed it over RPC (mutual TLS when the RPC
// port has it). Only servers the cluster admitted are asked, and a server
// takes a KEK only if it opens the root keys raft gave it, so a stray push
// can neither leak nor plant one.
func (s *Server) pushKEK(ctx context.Context) {
	if !s.cluster.HasGossip() {
		return
	}
	// At once, not an interval late: until a server holds the KEK it cannot
	// open the root keys, so its workers cannot prove they are servers. A
	// refusal is usually a follower whose log has not reached the first
	// root key yet, so retries start fast and slow down to the interval.
	retry := kekRetryFirst
	for {
		wait := kekPushInterval
		if s.pushKEKOnce(ctx) {
			retry = kekRetryFirst
		} else {
			wait, retry = retry, min(2*retry, kekPushInterval)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.kekWake:
		case <-s.config.Clock.After(wait):
		}
	}
}

// wakeKEKPush asks the leader to hand the KEK over now (a server joined).
func (s *Server) wakeKEKPush() {
	select {
	case s.kekWake <- struct{}{}:
	default:
	}
}

// pushKEKOnce offers the KEK to every alive server that lacks it and
// reports whether all of them now hold it.
func (s *Server) pushKEKOnce(ctx context.Context) bool {
	kek := s.keys.current()
	if kek == nil {
		return true
	}
	all := true
	s.kekHolders.mu.Lock()
	if s.kekHolders.have == nil {
		s.kekHolders.have = map[string]bool{}
	}
	s.kekHolders.mu.Unlock()
	for _, m := range s.cluster.Servers() {
		if m.Status != serf.StatusAlive {
			s.forgetKEKHolder(m.ID) // it may come back with an empty data dir
			continue
		}
		if m.ID == s.nodeID || s.kekHeldBy(m.ID) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		args := &structs.KeyringInstallKEKRequest{KEK: kek}
		args.Region = s.config.Region
		err := s.cluster.Pool().RPC(cctx, m.RPCAddr, "Keyring.InstallKEK", args, &structs.KeyringInstallKEKResponse{})
		cancel()
		if err != nil {
			s.log.Debug("keyring: key-encryption key not handed over yet", "server", m.Name, "error", err)
			all = false
			continue
		}
		s.kekHolders.mu.Lock()
		s.kekHolders.have[m.ID] = true
		s.kekHolders.mu.Unlock()
	}
	return all
}

func (s *Server) forgetKEKHolder(id string) {
	s.kekHolders.mu.Lock()
	defer s.kekHolders.mu.Unlock()
	delete(s.kekHolders.have, id)
}

func (s *Server) kekHeldBy(id string) bool {
	s.kekHolders.mu.Lock()
	defer s.kekHolders.mu.Unlock()
	return s.kekHolders.have[id]
}

// InstallKEK takes the cluster's KEK from the leader. It is this server's
// own business (never forwarded); the KEK must open a root key this
// server holds, so the caller proves it already had the secret.
func (e *KeyringEndpoint) InstallKEK(ctx context.Context, args *structs.KeyringInstallKEKRequest) (*structs.KeyringInstallKEKResponse, error) {
	if err := e.srv.authorizeMethod("Keyring.InstallKEK", args); err != nil {
		return nil, err
	}
	if err := e.srv.keys.install(args.KEK, e.srv.verifyKEK); err != nil {
		return nil, NewCodedError(http.StatusBadRequest, "%v", err)
	}
	return &structs.KeyringInstallKEKResponse{}, nil
}

// verifyKEK accepts a KEK that opens a wrapped root key in this server's
// state; with none yet (raft not caught up) it cannot tell, and refuses.
func (s *Server) verifyKEK(kek []byte) error {
	keys, err := s.State().RootKeys(nil)
	if err != nil {
		return err
	}
	id := kekID(kek)
	for _, k := range keys {
		if k.KEKID != id || len(k.WrappedKey) == 0 {
			continue
		}
		if _, err := unwrapWith(kek, k); err != nil {
			return err
		}
		return nil
	}
	if len(keys) == 0 {
		return errors.New("keyring: no root keys replicated yet to check the key-encryption key against")
	}
	return fmt.Errorf("keyring: the key-encryption key %s wraps none of this server's root keys", id)
}
