// Package termtext makes text from tools and confined children safe to print on a terminal:
// control characters become visible escapes, so that no tool can set the terminal's title,
// move its cursor, erase what was printed or draw lines of its own.
//
// It is a leaf: it imports only the standard library.
package termtext
