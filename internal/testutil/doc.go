// Package testutil is the shared test kit: waiting on a condition with a
// deadline (WaitFor), and, in subpackages, fixtures (mock) and helpers
// that start agents and clusters. Only tests import it.
package testutil
