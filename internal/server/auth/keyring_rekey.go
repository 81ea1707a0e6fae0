package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/drover-project/drover/internal/structs"
)

// A full rotation (`rotate?full=true`): the new key becomes active, every
// older key that is not deprecated is marked rekeying, and the leader then
// seals each of their variables again with the active key in batches
// (RekeyBatchVars variables or rekeyBatchBytes of ciphertext per raft
// entry, so no entry grows with the number of variables), and finally
// marks them deprecated. The work resumes on a new leader: the rekeying
// state is in raft.

const (
	// rekeyPasses bounds the passes over one key's variables: a pass skips
	// those written meanwhile, and a lock renewal keeps a variable's
	// sealed items, so a busy lock can need another pass.
	rekeyPasses = 5
	// RekeyBatchVars and rekeyBatchBytes bound one VariablesRekeyRequest.
	RekeyBatchVars  = 128
	rekeyBatchBytes = 256 << 10
	rekeyRetryDelay = 5 * time.Second
)

// ResumeRekey is a leader duty: it finishes any rekeying on taking
// leadership, then whenever a full rotation asks.
func (s *Service) ResumeRekey(ctx context.Context) {
	for {
		if err := s.rekey(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("keyring: rekeying variables failed; retrying", "error", err)
			select {
			case <-ctx.Done():
				return
			case <-s.cfg.Clock.After(rekeyRetryDelay):
			}
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-s.rekeyWake:
		}
	}
}

// WakeRekey asks the leader's rekeyer to look for rekeying keys.
func (s *Service) WakeRekey() {
	select {
	case s.rekeyWake <- struct{}{}:
	default:
	}
}

// rekey seals every variable of every rekeying key again with the active
// key, then deprecates those keys.
func (s *Service) rekey(ctx context.Context) error {
	keys, err := s.srv.State().RootKeys(nil)
	if err != nil {
		return err
	}
	var rekeying []string
	for _, k := range keys {
		if k.State == structs.RootKeyStateRekeying {
			rekeying = append(rekeying, k.KeyID)
		}
	}
	if len(rekeying) == 0 {
		return nil
	}
	for _, id := range rekeying {
		if err := s.rekeyVariablesOf(ctx, id); err != nil {
			return err
		}
	}
	_, err = s.srv.RaftApply(structs.RootKeyStateRequestType, &structs.RootKeyStateRequest{KeyIDs: rekeying, State: structs.RootKeyStateDeprecated})
	return err
}

// rekeyVariablesOf re-seals one key's variables until none is left.
func (s *Service) rekeyVariablesOf(ctx context.Context, keyID string) error {
	for range rekeyPasses {
		vars, err := s.srv.State().VariablesByKeyID(nil, keyID)
		if err != nil || len(vars) == 0 {
			return err
		}
		if err := s.rekeyPass(ctx, vars); err != nil {
			return err
		}
	}
	return fmt.Errorf("keyring: variables of key %s still changing after %d passes", keyID, rekeyPasses)
}

// rekeyPass re-seals vars in batches.
func (s *Service) rekeyPass(ctx context.Context, vars []*structs.VariableEncrypted) error {
	var batch []*structs.VariableEncrypted
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := s.srv.RaftApply(structs.VariablesRekeyRequestType, &structs.VariablesRekeyRequest{Vars: batch})
		batch, size = nil, 0
		return err
	}
	for _, v := range vars {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := s.resealed(v)
		if err != nil {
			return err
		}
		batch, size = append(batch, c), size+len(c.Data)
		if len(batch) >= RekeyBatchVars || size >= rekeyBatchBytes {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// resealed is v's items sealed with the active key (the ModifyIndex read
// is kept so the entry skips a variable written meanwhile).
func (s *Service) resealed(v *structs.VariableEncrypted) (*structs.VariableEncrypted, error) {
	aad := VariableAAD(v.Namespace, v.Path)
	plain, err := s.Open(v.Data, v.KeyID, aad)
	if err != nil {
		return nil, err
	}
	data, keyID, err := s.Seal(plain, aad)
	if err != nil {
		return nil, err
	}
	return &structs.VariableEncrypted{VariableMetadata: structs.VariableMetadata{
		Namespace: v.Namespace, Path: v.Path, ModifyIndex: v.ModifyIndex}, Data: data, KeyID: keyID}, nil
}

// StartRekey marks every older key that is not deprecated as rekeying and
// wakes the rekeyer (this server leads: Rotate was forwarded here).
func (s *Service) StartRekey(activeID string) error {
	keys, err := s.srv.State().RootKeys(nil)
	if err != nil {
		return err
	}
	var ids []string
	for _, k := range keys {
		if k.KeyID != activeID && k.State != structs.RootKeyStateDeprecated {
			ids = append(ids, k.KeyID)
		}
	}
	if len(ids) > 0 {
		if _, err := s.srv.RaftApply(structs.RootKeyStateRequestType, &structs.RootKeyStateRequest{KeyIDs: ids, State: structs.RootKeyStateRekeying}); err != nil {
			return err
		}
	}
	s.WakeRekey()
	return nil
}
