// Package textdist measures how far apart two short strings are, for the
// "did you mean" hints of the registry, the config and the command line.
// It is a leaf: it imports only the standard library, and every package of
// the project may import it.
package textdist
