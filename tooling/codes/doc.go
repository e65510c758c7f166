// Package codes holds the stable, machine-readable reasons a call of a
// tooling registry did not succeed: the vocabulary that results, errors,
// exit statuses, the ledger and the MCP endpoints share. A program that
// reads results (a client of the gateway, a ledger reader) compares
// codes without linking the registry.
//
// Codes never change meaning; new ones may be added, and middleware may
// define codes of its own (a budget's budget_exceeded).
package codes
