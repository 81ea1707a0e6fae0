package apiconv

import (
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/structs"
)

// VariableToStructs converts a variable from a request body; a lock's TTL
// and delay are duration strings ("15s"), and a bad one is an error naming
// the field.
func VariableToStructs(in *api.Variable) (*structs.VariableDecrypted, error) {
	out := &structs.VariableDecrypted{
		VariableMetadata: structs.VariableMetadata{Namespace: in.Namespace, Path: in.Path, ModifyIndex: in.ModifyIndex},
		Items:            maps.Clone(map[string]string(in.Items)),
	}
	if in.Lock != nil {
		l := &structs.VariableLock{ID: in.Lock.ID}
		var err error
		if l.TTL, err = optionalDuration(in.Lock.TTL); err != nil {
			return nil, fmt.Errorf("Lock.TTL: %w", err)
		}
		if l.LockDelay, err = optionalDuration(in.Lock.LockDelay); err != nil {
			return nil, fmt.Errorf("Lock.LockDelay: %w", err)
		}
		out.Lock = l
	}
	return out, nil
}

func optionalDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

// VariableFromStructs converts a variable for a reply.
func VariableFromStructs(in *structs.VariableDecrypted) *api.Variable {
	md := VariableMetadataFromStructs(&in.VariableMetadata)
	return &api.Variable{Namespace: md.Namespace, Path: md.Path, CreateIndex: md.CreateIndex, ModifyIndex: md.ModifyIndex,
		CreateTime: md.CreateTime, ModifyTime: md.ModifyTime, Items: api.VariableItems(maps.Clone(in.Items)), Lock: md.Lock}
}

// VariableMetadataFromStructs converts a variable's metadata.
func VariableMetadataFromStructs(in *structs.VariableMetadata) *api.VariableMetadata {
	out := &api.VariableMetadata{Namespace: in.Namespace, Path: in.Path, CreateIndex: in.CreateIndex,
		ModifyIndex: in.ModifyIndex, CreateTime: in.CreateTime, ModifyTime: in.ModifyTime}
	if in.Lock != nil {
		out.Lock = &api.VariableLock{ID: in.Lock.ID, TTL: in.Lock.TTL.String(), LockDelay: in.Lock.LockDelay.String()}
	}
	return out
}

// RootKeyMetaFromStructs converts a keyring entry (never its material).
func RootKeyMetaFromStructs(k *structs.RootKey) *api.RootKeyMeta {
	return &api.RootKeyMeta{KeyID: k.KeyID, Algorithm: api.EncryptionAlgorithm(k.Algorithm), CreateTime: k.CreateTime,
		CreateIndex: k.CreateIndex, ModifyIndex: k.ModifyIndex, State: api.RootKeyState(k.State)}
}
