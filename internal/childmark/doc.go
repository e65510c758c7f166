// Package childmark says how a confined child of the running binary is
// told from any other start of it: both the registry, which must know
// before confinement is linked in, and the confinement itself read it.
package childmark
