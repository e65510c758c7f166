// Package callargs reads single arguments of a call for the project's
// tests and examples, where a struct for Call.Decode would be longer than
// the tool. Tools read their arguments with Call.Decode.
package callargs
