package planapply

import (
	"fmt"
	"testing"
)

// claims must answer the same before and after it switches to a map.
func TestClaims_GrowsIntoMap(t *testing.T) {
	var c claims[int]
	for i := range 3 * claimsSmall {
		if _, ok := c.owner(i); ok {
			t.Fatalf("%d claimed before set", i)
		}
		c.set(i, fmt.Sprint("a", i))
		for j := 0; j <= i; j++ {
			if o, ok := c.owner(j); !ok || o != fmt.Sprint("a", j) {
				t.Fatalf("after %d sets: owner(%d) = %q, %v", i+1, j, o, ok)
			}
		}
	}
}
