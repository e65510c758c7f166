package config

import "github.com/toolexplorer/toolexplorer/internal/toolname"

// ValidName reports whether name is a tool name: two or more lower snake
// case segments joined by dots, like "demo.echo" or "fs.read_file". The
// grammar is the registry's (internal/toolname); schema.json states it as
// regular expressions ($defs/name and $defs/pattern).
func ValidName(name string) bool { return toolname.Valid(name) }

// ValidPattern reports whether pattern may appear in a whitelist or a
// blacklist: "*", or two or more dot-separated segments, each a lower snake
// case word or "*".
func ValidPattern(pattern string) bool { return toolname.ValidPattern(pattern) }

// Match reports whether the tool named name matches pattern. Names and
// patterns are split on dots, and segments compare as with path.Match,
// the dot playing the part of the slash:
//
//	"demo.echo"  only the tool demo.echo
//	"demo.*"     every tool of group demo
//	"*.read"     every tool named read, whatever its group
//	"*"          every tool
//
// A segment "*" stands for exactly one segment, except as the last segment
// of the pattern, where it stands for the rest of the name (one segment or
// more): so "*" matches every name and "demo.*" also matches "demo.sub.x".
// Nothing else is special: "demo.ec*" matches only a tool of that very
// name, which ValidPattern refuses. An empty pattern or name matches
// nothing.
func Match(pattern, name string) bool { return toolname.Match(pattern, name) }
