// Package kind holds the kinds of validation errors of package jsonschema,
// the project's fork of github.com/santhosh-tekuri/jsonschema/v6 (v6.0.3,
// Apache License 2.0; see ../doc.go for what the fork changes). This package
// is upstream's, unchanged but for its import paths and this file.
package kind
