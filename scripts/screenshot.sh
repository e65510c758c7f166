#!/usr/bin/env bash
# Makes docs/console.svg, the picture of the console on the README, from the
# console itself: it runs `toolexplorer --demo` in a detached tmux session at
# 100×30 (the terminal of the end-to-end tests, cmd/toolexplorer/e2e_tmux_test.go),
# waits for the tool list, captures the pane with its colours
# (tmux capture-pane -e -p) and turns the captured text into SVG with freeze.
#
#   scripts/screenshot.sh            # or: make screenshot
#   scripts/screenshot.sh OUT.svg    # another file (.png works too)
#
# Needs tmux and the go command; freeze comes through the Go module proxy the
# first time (FREEZE=/path/to/freeze uses another). Nothing runs it in CI:
# run it when the console's list looks different, and commit the picture.
set -euo pipefail

cd "$(dirname "$0")/.."
out=${1:-docs/console.svg}
freeze_version=v0.2.2
width=100 height=30

command -v tmux >/dev/null || { echo "screenshot: tmux is not installed (apt-get install tmux)" >&2; exit 1; }

tmp=$(mktemp -d)
socket="toolexplorer-screenshot-$$"
tmuxc() { tmux -L "$socket" -f /dev/null "$@"; }
cleanup() {
	tmuxc kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

GOTOOLCHAIN=local CGO_ENABLED=0 go build -o "$tmp/toolexplorer" ./cmd/toolexplorer

# The tmux server takes its environment from this one: no NO_COLOR, and not
# the session this may run in.
unset NO_COLOR TMUX TMUX_PANE
# The demo shop's database goes in a cache of its own, and no history or
# config of the user's is read.
tmuxc start-server \; \
	set-option -g default-terminal xterm-256color \; \
	new-session -d -s shot -x "$width" -y "$height" -c "$PWD" \
	-e TOOLEXPLORER_CONFIG= -e TOOLEXPLORER_HISTORY=off -e "XDG_CACHE_HOME=$tmp/cache" \
	-- "$tmp/toolexplorer" --demo

# Wait for the whole list (its last tool) and a screen that no longer changes.
screen=""
for _ in $(seq 1200); do
	now=$(tmuxc capture-pane -p -t shot)
	if [[ $now == *"press / to filter"* && $now == *"shop.shipping_quote"* && $now == "$screen" ]]; then
		break
	fi
	screen=$now
	sleep 0.1
done
if [[ $screen != *"shop.shipping_quote"* ]]; then
	printf 'screenshot: the console did not show its list in 2 minutes; the screen:\n%s\n' "$screen" >&2
	exit 1
fi
if [[ $screen == *"load problem"* ]]; then
	# Such as the demo shop's port (127.0.0.1:7411) taken by another demo.
	printf 'screenshot: the console has load problems, which the picture would show; the screen:\n%s\n' "$screen" >&2
	exit 1
fi
tmuxc capture-pane -e -p -t shot >"$tmp/console.ansi"

if [[ -n ${FREEZE:-} ]]; then
	freeze=("$FREEZE")
else
	freeze=(env GOTOOLCHAIN=local go run "github.com/charmbracelet/freeze@$freeze_version")
fi
"${freeze[@]}" --language ansi --font.ligatures=false --output "$out" <"$tmp/console.ansi"
