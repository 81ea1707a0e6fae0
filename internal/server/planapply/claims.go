package planapply

// claimsSmall is the count up to which claims scans a slice instead of
// hashing: a node holds a handful of ports and cores, and building a map
// for each node of every plan was the largest cost of evaluation.
const claimsSmall = 32

// claims maps an exclusive resource (a port, a core) to the alloc holding it.
type claims[K comparable] struct {
	small []claim[K]
	big   map[K]string
}

type claim[K comparable] struct {
	key   K
	owner string
}

func (c *claims[K]) owner(k K) (string, bool) {
	if c.big != nil {
		o, ok := c.big[k]
		return o, ok
	}
	for _, cl := range c.small {
		if cl.key == k {
			return cl.owner, true
		}
	}
	return "", false
}

// set records owner for a key that owner() reported absent.
func (c *claims[K]) set(k K, owner string) {
	if c.big != nil {
		c.big[k] = owner
		return
	}
	if c.small == nil {
		c.small = make([]claim[K], 0, claimsSmall/2) // one allocation for most nodes
	}
	if len(c.small) < claimsSmall {
		c.small = append(c.small, claim[K]{k, owner})
		return
	}
	c.big = make(map[K]string, 2*claimsSmall)
	for _, cl := range c.small {
		c.big[cl.key] = cl.owner
	}
	c.big[k] = owner
	c.small = nil
}
