package client

import (
	"fmt"
	"maps"
	"strings"
	"unicode"
)

// Dynamic node metadata: keys set (or unset, with a nil value) through
// /v1/client/metadata on top of the agent configuration's client.meta.
// They survive a client restart (kept in the client's state) and reach the
// servers by registering the node again.

// NodeMeta is the node's metadata: merged, dynamic and static.
type NodeMeta struct {
	Meta    map[string]string
	Dynamic map[string]*string
	Static  map[string]string
}

// NodeMeta answers the node's current metadata.
func (c *Client) NodeMeta() *NodeMeta {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &NodeMeta{Meta: maps.Clone(c.node.Meta), Dynamic: cloneMetaPtrs(c.dynamicMeta), Static: maps.Clone(c.cfg.Meta)}
}

// ApplyNodeMeta sets dynamic keys (a nil value unsets the key), stores
// them, and has the node registered again with the merged metadata.
func (c *Client) ApplyNodeMeta(updates map[string]*string) (*NodeMeta, error) {
	if len(updates) == 0 {
		return nil, fmt.Errorf("%w: Meta: no keys to set or unset", ErrBadRequest)
	}
	for k := range updates {
		if err := validMetaKey(k); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	next := cloneMetaPtrs(c.dynamicMeta)
	maps.Copy(next, cloneMetaPtrs(updates))
	if err := c.store.PutDynamicMeta(next); err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("store node metadata: %w", err)
	}
	c.dynamicMeta = next
	c.node = c.buildNode(c.fp)
	c.mu.Unlock()
	select {
	case c.reregisterCh <- struct{}{}:
	default:
	}
	return c.NodeMeta(), nil
}

// validMetaKey refuses keys the interpolation syntax (${meta.KEY}) could
// not address.
func validMetaKey(k string) error {
	if k == "" {
		return fmt.Errorf("%w: Meta: empty key", ErrBadRequest)
	}
	if strings.IndexFunc(k, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '{' || r == '}' }) >= 0 {
		return fmt.Errorf("%w: Meta: key %q contains whitespace, quotes or braces", ErrBadRequest, k)
	}
	return nil
}

// mergeMeta is static overlaid with dynamic (nil unsets).
func mergeMeta(static map[string]string, dynamic map[string]*string) map[string]string {
	out := maps.Clone(static)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range dynamic {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = *v
		}
	}
	return out
}

func cloneMetaPtrs(in map[string]*string) map[string]*string {
	out := make(map[string]*string, len(in))
	for k, v := range in {
		if v != nil {
			s := *v
			v = &s
		}
		out[k] = v
	}
	return out
}
