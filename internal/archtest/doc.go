// Package archtest holds no code: its tests enforce the dependency arrows
// between Drover's packages described in DESIGN.md ("Package layout"), so a
// wrong import fails CI instead of slowly eroding the layering.
package archtest
