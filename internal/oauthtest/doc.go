// Package oauthtest is an OAuth 2.1 authorization server and a protected
// MCP server on loopback, for the tests of clients that sign in (package
// mcp and the gateway): dynamic registration, the authorization code grant
// with PKCE, the device grant, refresh tokens that rotate, and the
// resource's metadata.
//
// Imports: the standard library and the MCP SDK.
package oauthtest
