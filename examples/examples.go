package examples

import "embed"

// Tools holds tools/*.yaml, the files --demo loads.
//
//go:embed tools/*.yaml
var Tools embed.FS
