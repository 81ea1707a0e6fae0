package drivers

import (
	"fmt"
	"os/user"
	"strconv"
	"syscall"
)

// LookupCredential resolves a task's user (name or numeric uid) into the
// credential to run it with, including its supplementary groups.
func LookupCredential(name string) (*syscall.Credential, error) {
	u, err := user.Lookup(name)
	if err != nil {
		if _, numErr := strconv.Atoi(name); numErr != nil {
			return nil, fmt.Errorf("user %q: %w", name, err)
		}
		if u, err = user.LookupId(name); err != nil {
			return nil, fmt.Errorf("user %q: %w", name, err)
		}
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if ids, err := u.GroupIds(); err == nil {
		for _, g := range ids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
	}
	return cred, nil
}
