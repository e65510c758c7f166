package childmark

import "os"

// How the parent marks a child: both must hold, so a stray variable alone
// never turns a normal start of the program into a child.
const (
	EnvMarker   = "TOOLEXPLORER_CONFINE_CHILD"
	MarkerValue = "v1"
	Argv0       = "confine-child"
)

// IsChild reports whether this process was started as a confined child.
func IsChild() bool {
	return len(os.Args) > 0 && os.Args[0] == Argv0 && os.Getenv(EnvMarker) == MarkerValue
}
