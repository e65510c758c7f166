#!/usr/bin/env bash
# gate.sh: the boundary gate of toolexplorer.
#
# Usage:
#   scripts/gate.sh [--root DIR]              check the tree (default: the repository holding this script)
#   scripts/gate.sh --self-test [--root DIR]  plant one violation per rule in temporary copies and check
#                                             that each is reported at its file:line
#
# Every violation is printed as "file:line: rule-id: explanation" (file relative to the root) and the
# gate exits 1; a clean tree prints "gate: ok (N rules, M files)" and exits 0.
#
# Rules (see "Layout and the one direction of imports" in the design). The import rules are checked by
# scripts/importrules, a Go program over `go list -e -deps -json` that reads the imports of every .go
# file (whatever its build constraints, and even when it does not compile); its tables (rules.go) are
# where a rule or a package still to come gets its line:
#   no-reflect-charm      tooling/ and sandbox/ import neither reflect (non-test files) nor any charm
#                         module (charm.land/..., github.com/charmbracelet/...).
#   demotools-imports     demotools/ imports only the standard library and tooling (its tests may also
#                         import demotools itself, and reflect); never os/exec, syscall, unsafe, reflect,
#                         golang.org/x/sys, cgo, sandbox or tui.
#   demotools-no-default  non-test files of demotools/ never reach the default registry (tooling.Default,
#                         .Execute, .ExecuteTool, .Lookup, .List, .Observe, .Configure; also through an alias) and
#                         never dot-import tooling.
#   confine-only          only sandbox/confine imports github.com/landlock-lsm/go-landlock and
#                         golang.org/x/net/bpf.
#   tui-no-sandbox        tui/ never imports sandbox: it sees governance through tooling.
#   tooling-imports-no-part tooling/ (its tests too) imports none of the parts beside it that plug into
#                         it: policy, ledger, telemetry, state, mcp, bindings, history.
#   confined-opt-in       in tooling/, only tooling/confined imports sandbox/confine (tests may): a host
#                         links confinement only when it imports tooling/confined.
#   demotools-cmd-only    only cmd/ imports demotools (test files inside demotools/ excepted).
#   import-direction      sandbox imports only its own subpackages; config imports only tooling;
#                         tooling imports only sandbox (never config); tui only tooling, config,
#                         history and ledger; bindings, ledger, telemetry, state and history only tooling
#                         and config, policy only tooling, mcp only tooling and sandbox/confine (to start a confined server;
#                         it takes an mcp.Spec, never config) (never the reverse); nothing outside
#                         cmd/NAME imports cmd/NAME; internal/ packages are
#                         leaves (they import no other project package) that every package may import.
# This script checks what grep is good at:
#   doc-go                every package directory (one with a non-test .go file) has a doc.go whose
#                         package clause carries the package comment.
#
# The self-test copies the tree (git ls-files, tracked and untracked but not ignored; else everything
# but .git) into a temporary directory, checks that the clean copy passes, then, in a fresh copy per
# case and in parallel, plants a violation of each rule (creating the package with a doc.go when it does
# not exist) and checks that the gate exits non-zero and reports that rule at the planted file:line and
# nothing else; a few planted cases that must pass guard against false positives. Every rule the Go
# program lists (importrules -rules) must fire in some case. It needs no network.
set -euo pipefail

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/$(basename "${BASH_SOURCE[0]}")"
readonly self
# The repository holding this script, where scripts/importrules is built from.
home="$(cd "$(dirname "$self")/.." && pwd -P)"
readonly home

cleanup_dirs=()
cleanup() {
	local d
	for d in "${cleanup_dirs[@]+"${cleanup_dirs[@]}"}"; do
		rm -rf -- "$d"
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

usage() {
	sed -n '4,7s/^# \{0,1\}//p' "$self"
}

die() {
	printf 'gate: %s\n' "$*" >&2
	exit 2
}

# build_importrules DIR builds scripts/importrules into DIR (unless GATE_IMPORTRULES names a built one)
# and sets importrules to it.
build_importrules() {
	if [[ -n ${GATE_IMPORTRULES:-} ]]; then
		importrules=$GATE_IMPORTRULES
		return
	fi
	command -v go >/dev/null 2>&1 || die "go not found on PATH"
	importrules="$1/importrules"
	(cd "$home" && GOTOOLCHAIN=local GOWORK=off go build -o "$importrules" ./scripts/importrules) ||
		die "cannot build scripts/importrules"
}

# list_go_files prints, one a line and relative to the current directory ("./..."), every .go file
# that ./... covers: no testdata, vendor, hidden or _-prefixed directories, no nested modules.
list_go_files() {
	local nested
	nested="$(find . -mindepth 2 -name go.mod -not -path '*/.*' -exec dirname {} \; 2>/dev/null || true)"
	find . \( -type d \( -name testdata -o -name vendor -o -name '.?*' -o -name '_*' \) -prune \) \
		-o \( -type f -name '*.go' ! -name '.*' ! -name '_*' -print \) |
		awk -v nested="$nested" '
			BEGIN { n = split(nested, ns, "\n") }
			{ for (i = 1; i <= n; i++) if (ns[i] != "" && index($0, ns[i] "/") == 1) next; print }' |
		LC_ALL=C sort
}

# doc_go reads the list of .go files and checks that every package directory has a doc.go with a
# package comment: the line right above its package clause is a // comment (not a build constraint)
# or ends a /* */ comment.
doc_go() {
	local d rel docs=()
	while IFS= read -r d; do
		rel=${d#./}
		if [[ -f $d/doc.go ]]; then
			docs+=("$d/doc.go")
		elif [[ $d == . ]]; then
			printf 'doc.go:1: doc-go: package directory . has no doc.go: add one with the package comment\n'
		else
			printf '%s/doc.go:1: doc-go: package directory %s has no doc.go: add one with the package comment\n' "$rel" "$rel"
		fi
	done < <(grep -v '_test[.]go$' | sed 's|/[^/]*$||' | LC_ALL=C sort -u)
	((${#docs[@]})) || return 0
	# shellcheck disable=SC2016 # the awk program is single-quoted on purpose
	awk '
		FNR == 1 { prev = ""; done = 0 }
		!done && /^package[ \t]/ {
			done = 1
			if ((prev ~ /^[ \t]*\/\// && prev !~ /^\/\/go:/ && prev !~ /^\/\/ *[+]build/) || prev ~ /[*]\/[ \t]*$/) next
			f = FILENAME; sub(/^\.\//, "", f); d = f; sub(/\/?doc[.]go$/, "", d); if (d == "") d = "."
			name = $2; sub(/[^A-Za-z0-9_].*$/, "", name)
			n = d; sub(/^.*\//, "", n)
			printf "%s:%d: doc-go: doc.go has no package comment: write \"// %s ...\" right above the package clause\n", f, FNR, (name == "main" ? "Command " n : "Package " name)
		}
		{ prev = $0 }' "${docs[@]}"
}

gate() {
	local files=() nfiles out n rc=0 rules
	cd "$root" || die "cannot enter $root"
	[[ -f go.mod ]] || die "no go.mod in $root"

	work="$(mktemp -d "${TMPDIR:-/tmp}/gate.XXXXXX")"
	cleanup_dirs+=("$work")
	build_importrules "$work"
	rules="$("$importrules" -rules | wc -l)"
	rules=$((rules + 1)) # and doc-go

	list_go_files >"$work/files"
	mapfile -t files <"$work/files"
	nfiles=${#files[@]}

	"$importrules" >"$work/imports" 2>"$work/imports.err" || rc=$?
	if ((rc > 1)); then
		die "scripts/importrules: $(head -n 1 "$work/imports.err")"
	fi
	doc_go <"$work/files" >"$work/docgo"

	out="$(cat "$work/imports" "$work/docgo" | LC_ALL=C sort -t: -k1,1 -k2,2n -k3,3 -u)"
	if [[ -z "$out" ]]; then
		printf 'gate: ok (%d rules, %d files)\n' "$rules" "$nfiles"
		return 0
	fi
	printf '%s\n' "$out"
	n="$(printf '%s\n' "$out" | wc -l)"
	printf 'gate: %d violation(s) (%d rules, %d files)\n' "$n" "$rules" "$nfiles" >&2
	return 1
}

# ---------------------------------------------------------------------------------------------------
# Self-test.

# copy_tree SRC DST copies the tracked and untracked, not ignored files of SRC (or everything but .git).
copy_tree() {
	local src=$1 dst=$2
	mkdir -p "$dst"
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
		[[ "$(cd "$src" && pwd -P)" == "$(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd -P)" ]]; then
		git -C "$src" ls-files -z -c -o --exclude-standard |
			(cd "$src" && while IFS= read -r -d '' p; do
				if [[ -f "$p" || -L "$p" ]]; then printf '%s\0' "$p"; fi
			done) |
			tar -C "$src" --null -T - -cf - | tar -C "$dst" -xf -
	else
		tar -C "$src" --exclude=./.git -cf - . | tar -C "$dst" -xf -
	fi
}

# pkgname DIR prints the package name of DIR: from its non-test files, else main under cmd/, else the
# directory name.
pkgname() {
	local d=$1 f name=""
	for f in "$d"/*.go; do
		[[ -f "$f" && "$f" != *_test.go ]] || continue
		name="$(sed -n 's/^package[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f" | head -n 1)"
		[[ -n "$name" ]] && break
	done
	if [[ -z "$name" ]]; then
		case $d in
		*/cmd/*) name=main ;;
		*) name="$(basename "$d")" ;;
		esac
	fi
	printf '%s\n' "$name"
}

# plant REL writes stdin to REL inside the case tree, creating the package (with a doc.go) when its
# directory has no Go file yet; @PKG@ and @MOD@ are replaced. It sets planted_file and planted_line
# (the line ending in "// want", else 1).
plant() {
	local rel=$1 dir pkg have=0 f
	dir="$casedir/$(dirname "$rel")"
	mkdir -p "$dir"
	for f in "$dir"/*.go; do
		if [[ -f "$f" && "$f" != *_test.go ]]; then have=1; fi
	done
	pkg="$(pkgname "$dir")"
	if ((!have)) && [[ $rel != */nodoc/* ]]; then
		printf '// Package %s is a placeholder.\npackage %s\n' "$pkg" "$pkg" >"$dir/doc.go"
	fi
	sed -e "s|@PKG@|$pkg|g" -e "s|@MOD@|$selfmod|g" >"$casedir/$rel"
	planted_file=$rel
	planted_line="$(grep -n '// want$' "$casedir/$rel" | head -n 1 | cut -d: -f1 || true)"
	planted_line=${planted_line:-1}
}

# plant_case N plants case N in $casedir and sets want_rule ("" when the case must pass).
plant_case() {
	want_rule=""
	case $1 in
	1)
		want_rule=no-reflect-charm
		plant tooling/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				"fmt"
				_ "reflect" // want
			)

			var _ = fmt.Sprint
		EOF
		;;
	2)
		want_rule=no-reflect-charm
		plant sandbox/confine/zz_gate_plant.go <<-'EOF'
			//go:build linux

			package @PKG@

			import tea "charm.land/bubbletea/v2" // want

			func broken( { tea.Quit
		EOF
		;;
	3)
		want_rule=demotools-imports
		plant demotools/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				"context"
				"os/exec" // want
			)

			func run(ctx context.Context) error { return exec.CommandContext(ctx, "true").Run() }
		EOF
		;;
	4)
		want_rule=demotools-imports
		plant demotools/zz_gate_plant_test.go <<-'EOF'
			package @PKG@_test

			import (
				"testing"

				"@MOD@/sandbox" // want
			)

			func TestPlant(t *testing.T) { _ = sandbox.Anything }
		EOF
		;;
	5)
		want_rule=demotools-imports
		plant demotools/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import "github.com/example/thirdparty" // want

			var _ = thirdparty.X
		EOF
		;;
	6)
		want_rule=demotools-no-default
		plant demotools/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import "@MOD@/tooling"

			func init() {
				_ = tooling.Default // want
			}
		EOF
		;;
	7)
		want_rule=demotools-no-default
		plant demotools/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import reg "@MOD@/tooling"

			var schema = `{"pattern": "/*"}`

			func call() { reg.ExecuteTool(nil, "a.b", nil) } // want
		EOF
		;;
	8)
		want_rule=confine-only
		plant tooling/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "golang.org/x/net/bpf" // want
		EOF
		;;
	9)
		want_rule=confine-only
		plant sandbox/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				_ "github.com/landlock-lsm/go-landlock/landlock" // want
			)
		EOF
		;;
	10)
		want_rule=tui-no-sandbox
		plant tui/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				"@MOD@/sandbox" // want
			)

			var x = sandbox.
		EOF
		;;
	11)
		want_rule=demotools-cmd-only
		plant tooling/zz_gate_plant_test.go <<-'EOF'
			package @PKG@_test

			import (
				"testing"

				_ "@MOD@/demotools" // want
			)

			func TestPlant(t *testing.T) {}
		EOF
		;;
	12)
		want_rule=import-direction
		plant sandbox/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/tooling" // want
		EOF
		;;
	13)
		want_rule=import-direction
		plant config/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/cmd/toolexplorer" // want
		EOF
		;;
	14)
		want_rule=import-direction
		plant tooling/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/tui" // want
		EOF
		;;
	15)
		want_rule=doc-go
		plant tooling/nodoc/plant.go <<-'EOF'
			package nodoc
		EOF
		planted_file=tooling/nodoc/doc.go
		;;
	16)
		want_rule=doc-go
		plant sandbox/nodoc/doc.go <<-'EOF'
			//go:build linux

			package nodoc // want
		EOF
		;;
	17)
		plant cmd/toolexplorer/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				_ "@MOD@/config"
				_ "@MOD@/demotools"
				_ "@MOD@/sandbox"
				_ "@MOD@/sandbox/confine"
				_ "@MOD@/tooling"
				_ "@MOD@/tui"
			)
		EOF
		;;
	18)
		plant demotools/zz_gate_plant_test.go <<-'EOF'
			package @PKG@_test

			import (
				"context"
				"reflect"
				"testing"

				"@MOD@/demotools"
				"@MOD@/tooling"
			)

			func TestPlant(t *testing.T) {
				_, _ = tooling.ExecuteTool(context.Background(), "a.b", nil)
				_ = reflect.DeepEqual
				_ = demotools.X
			}
		EOF
		;;
	19)
		plant demotools/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				"encoding/json"

				"@MOD@/tooling"
			)

			// tooling.Default and tooling.Lookup are never called from a tool.
			var doc = "tooling.Default"

			var schema = json.RawMessage(`{
				"description": "see http://example.com /* not a comment",
				"x": "tooling.Lookup(\"a\")"
			}`)

			/* tooling.List() */

			var _ = tooling.Register
			var _ tooling.ListOptions
		EOF
		;;
	20)
		plant sandbox/confine/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				_ "github.com/landlock-lsm/go-landlock/landlock"
				_ "golang.org/x/net/bpf"
				_ "golang.org/x/sys/unix"
			)
		EOF
		;;
	21)
		plant tooling/zz_gate_plant_test.go <<-'EOF'
			package @PKG@

			import (
				"reflect"
				"testing"

				_ "@MOD@/sandbox"
			)

			func TestPlant(t *testing.T) { _ = reflect.DeepEqual }
		EOF
		;;
	22)
		want_rule=import-direction
		plant internal/textdist/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/config" // want
		EOF
		;;
	23)
		plant config/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/internal/textdist"
		EOF
		;;
	24)
		want_rule=tooling-imports-no-part
		plant tooling/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/ledger" // want
		EOF
		plant ledger/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/tooling"
		EOF
		planted_file=tooling/zz_gate_plant.go planted_line=3
		;;
	25)
		want_rule=import-direction
		plant telemetry/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				_ "@MOD@/tooling"
				_ "@MOD@/tui" // want
			)
		EOF
		;;
	26)
		plant mcp/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				_ "@MOD@/internal/textdist"
				_ "@MOD@/sandbox/confine"
				_ "@MOD@/tooling"
			)
		EOF
		;;
	27)
		want_rule=demotools-imports
		plant demotools/zz_gate_plant_windows.go <<-'EOF'
			//go:build windows

			package @PKG@

			import "syscall" // want

			var _ = syscall.Getpid
		EOF
		;;
	28)
		want_rule=demotools-no-default
		plant demotools/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import (
				"context"

				"@MOD@/tooling"
			)

			func call(ctx context.Context) {
				f := tooling.Lookup // want
				_ = f
				_, _ = tooling.Default.Execute(ctx, "a.b", nil)
			}
		EOF
		;;
	29)
		want_rule=import-direction
		plant tooling/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/config" // want
		EOF
		;;
	30)
		want_rule=import-direction
		plant mcp/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/config" // want
		EOF
		;;
	31)
		want_rule=confined-opt-in
		plant tooling/zz_gate_plant.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/sandbox/confine" // want
		EOF
		;;
	32)
		# A test of tooling may import sandbox/confine.
		plant tooling/zz_gate_plant_test.go <<-'EOF'
			package @PKG@

			import _ "@MOD@/sandbox/confine"
		EOF
		;;
	*) return 1 ;;
	esac
}
readonly NCASES=32

# run_case N plants case N in a fresh copy of $base, runs the gate there and writes
# "rc|fired-at-place|mentioned|others|rule|file:line" to $tmp/res.N and the output to $tmp/out.N.
run_case() {
	local i=$1 rc=0 out at=0 mentioned=0 others
	casedir="$tmp/case$i"
	want_rule="" planted_file="(clean copy)" planted_line=""
	cp -a "$base" "$casedir"
	if ((i > 0)); then plant_case "$i"; fi
	if [[ -z $want_rule ]]; then planted_line=""; fi
	out="$(bash "$self" --root "$casedir" 2>&1)" || rc=$?
	if [[ -n $want_rule ]] && grep -qF -- "$planted_file:$planted_line: $want_rule: " <<<"$out"; then at=1; fi
	if ((i > 0)) && grep -qF -- "$planted_file:" <<<"$out"; then mentioned=1; fi
	others="$(grep -E '^[^ :]+:[0-9]+: [a-z-]+: ' <<<"$out" | grep -cvF -- "$planted_file:" || true)"
	printf '%s\n' "$out" >"$tmp/out.$i"
	printf '%s|%s|%s|%s|%s|%s\n' "$rc" "$at" "$mentioned" "$others" "$want_rule" "$planted_file${planted_line:+:$planted_line}" >"$tmp/res.$i"
	rm -rf -- "$casedir"
}

self_test() {
	local base rc at mentioned others rule place clean=0 failed=0 i r expect fired verdict logs="" covered="" start jobs
	start=$SECONDS
	[[ -f "$root/go.mod" ]] || die "no go.mod in $root"
	selfmod="$(awk '$1 == "module" { gsub(/"/, "", $2); print $2; exit }' "$root/go.mod")"
	tmp="$(mktemp -d "${TMPDIR:-/tmp}/gate-selftest.XXXXXX")"
	cleanup_dirs+=("$tmp")
	base="$tmp/base"
	copy_tree "$root" "$base"
	# One build of the import rules serves every case; every rule it lists must fire.
	build_importrules "$tmp"
	export GATE_IMPORTRULES=$importrules
	mapfile -t rules < <("$importrules" -rules)
	rules+=(doc-go)

	# Case 0 is the clean copy; the cases run in parallel, each in its own copy.
	jobs="$(nproc 2>/dev/null || echo 2)"
	jobs=$((jobs < 2 ? 4 : 2 * jobs))
	for ((i = 0; i <= NCASES; i++)); do
		while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
		run_case "$i" &
	done
	wait

	printf '%-4s %-21s %-46s %-6s %-6s %s\n' case rule planted expect fired result
	for ((i = 0; i <= NCASES; i++)); do
		if [[ ! -f "$tmp/res.$i" ]]; then
			failed=$((failed + 1))
			printf '%-4s %-21s %-46s %-6s %-6s %s\n' "$i" '?' '?' '?' '?' FAIL
			logs+=$'\n'"case $i did not run to the end"$'\n'
			continue
		fi
		IFS='|' read -r rc at mentioned others rule place <"$tmp/res.$i"
		if [[ -n $rule ]]; then
			expect=fire fired=no verdict=FAIL
			if ((rc != 0 && at)); then fired=yes verdict=ok covered+=" $rule "; fi
			# On a clean tree, the planted file is the only one reported.
			if ((clean && others)); then verdict=FAIL; fi
		else
			expect=pass fired=no verdict=ok
			if ((i == 0)); then
				if ((rc == 0)); then clean=1; else fired=yes verdict=FAIL; fi
			else
				if ((mentioned)); then fired=yes verdict=FAIL; fi
				if ((rc != 0 && clean)); then verdict=FAIL; fi
			fi
		fi
		printf '%-4s %-21s %-46s %-6s %-6s %s\n' "$i" "${rule:-(none)}" "$place" "$expect" "$fired" "$verdict"
		if [[ $verdict == FAIL ]]; then
			failed=$((failed + 1))
			logs+=$'\n'"case $i: $expect ${rule:+$rule }at $place; gate exit $rc, output:"$'\n'"$(cat "$tmp/out.$i")"$'\n'
		fi
	done

	for r in "${rules[@]}"; do
		if [[ $covered != *" $r "* ]]; then
			failed=$((failed + 1))
			logs+=$'\n'"rule $r: no planted violation fired it"$'\n'
		fi
	done

	if ((failed)); then
		printf '%s' "$logs"
		printf 'gate self-test: FAIL (%d failure(s) in %d cases, %ds)\n' "$failed" "$((NCASES + 1))" "$((SECONDS - start))"
		return 1
	fi
	printf 'gate self-test: ok (%d cases, all %d rules fired, %ds)\n' "$((NCASES + 1))" "${#rules[@]}" "$((SECONDS - start))"
}

# ---------------------------------------------------------------------------------------------------

mode=gate
root=""
while (($#)); do
	case $1 in
	--self-test) mode=selftest ;;
	--root)
		(($# >= 2)) || die "--root needs a directory"
		root=$2
		shift
		;;
	--root=*) root=${1#--root=} ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
	shift
done
if [[ -z $root ]]; then
	root="$(cd "$(dirname "$self")/.." && pwd -P)"
fi
[[ -d $root ]] || die "no directory $root"
root="$(cd "$root" && pwd -P)"

case $mode in
gate) gate ;;
selftest) self_test ;;
esac
