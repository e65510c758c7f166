#!/usr/bin/env bash
# Installs the MCP peers the tests run against (the MCP Inspector's CLI, server-everything) into .cache/npm,
# at the versions pinned by scripts/peers/package-lock.json. With the argument "gateways", installs instead
# the MCP gateways the gateway benchmark compares with (mcp-proxy, supergateway) into .cache/npm-gateways, at
# the versions pinned by scripts/peers/gateways/package-lock.json. Needs node and npm; nothing is installed
# outside the checkout.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
"")
	pins="$root/scripts/peers" dest="$root/.cache/npm"
	bins=(mcp-inspector mcp-server-everything)
	;;
gateways)
	pins="$root/scripts/peers/gateways" dest="$root/.cache/npm-gateways"
	bins=(mcp-proxy supergateway)
	;;
*)
	echo "usage: scripts/install-peers.sh [gateways]" >&2
	exit 2
	;;
esac
mkdir -p "$dest"
installed=1
cmp -s "$pins/package-lock.json" "$dest/package-lock.json" || installed=0
for b in "${bins[@]}"; do
	[ -x "$dest/node_modules/.bin/$b" ] || installed=0
done
if ((installed)); then
	exit 0
fi
cp "$pins/package.json" "$pins/package-lock.json" "$dest/"
# Install scripts are not run: none of the peers needs one.
npm ci --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error
