#!/usr/bin/env bash
# Installs the MCP peers the tests run against (the MCP Inspector's CLI, server-everything) into .cache/npm,
# at the versions pinned by scripts/peers/package-lock.json. Needs node and npm; nothing is
# installed outside the checkout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/.cache/npm"
mkdir -p "$dest"
if cmp -s "$root/scripts/peers/package-lock.json" "$dest/package-lock.json" && [ -x "$dest/node_modules/.bin/mcp-inspector" ] && [ -d "$dest/node_modules/@modelcontextprotocol/server-everything" ]; then
	exit 0
fi
cp "$root/scripts/peers/package.json" "$root/scripts/peers/package-lock.json" "$dest/"
# Install scripts are not run: the CLI needs none.
npm ci --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error
