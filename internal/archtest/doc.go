// Package archtest holds no code: its tests enforce the dependency arrows
// between Drover's packages described in docs/design.md ("Rules"), so a
// wrong import fails CI instead of slowly eroding the layering.
package archtest
