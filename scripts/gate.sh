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
# Rules (see "Layout and the one direction of imports" in the design):
#   no-reflect-charm      tooling/ and sandbox/ import neither reflect (non-test files) nor any charm
#                         module (charm.land/..., github.com/charmbracelet/...).
#   demotools-imports     demotools/ imports only the standard library and tooling (its tests may also
#                         import demotools itself, and reflect); never os/exec, syscall, unsafe, reflect,
#                         golang.org/x/sys, cgo, sandbox or tui.
#   demotools-no-default  non-test files of demotools/ never reach the default registry (tooling.Default,
#                         .ExecuteTool, .Lookup, .List, .Observe, .Configure; also through an alias) and
#                         never dot-import tooling.
#   confine-only          only sandbox/confine imports github.com/landlock-lsm/go-landlock and
#                         golang.org/x/net/bpf.
#   tui-no-sandbox        tui/ never imports sandbox: it sees governance through tooling.
#   demotools-cmd-only    only cmd/ imports demotools (test files inside demotools/ excepted).
#   import-direction      sandbox imports only its own subpackages; config imports no project package;
#                         tooling imports only sandbox and config; tui only tooling and config; nothing
#                         outside cmd/NAME imports cmd/NAME; internal/ packages are leaves (they import
#                         no other project package) that every package may import.
#   doc-go                every package directory (one with a non-test .go file) has a doc.go whose
#                         package clause carries the package comment.
#
# How it looks: a lexer in awk reads the import section of every .go file (whatever its build
# constraints, and even when it does not compile), and `go list -e` adds the import lists the
# toolchain sees (.Imports, .TestImports, .XTestImports). Both are checked and the findings are
# deduplicated; an import that only `go list` reports is located by a plain search of the package's
# files (line 1 of its first file if not found). `go list` runs offline (GOPROXY=off, -mod=mod) against a
# temporary copy of go.mod and go.sum, so it never touches the module files; if it cannot run at all,
# the source scan decides alone. Packages that do not exist yet are simply not checked.
#
# The self-test copies the tree (git ls-files, tracked and untracked but not ignored; else everything
# but .git) into a temporary directory, checks that the clean copy passes, then, in a fresh copy per
# case and in parallel, plants a violation of each rule (creating the package with a doc.go when it does
# not exist) and checks that the gate exits non-zero and reports that rule at the planted file:line and
# nothing else; a few planted cases that must pass guard against false positives. It needs no network.
set -euo pipefail

readonly RULES=(no-reflect-charm demotools-imports demotools-no-default confine-only tui-no-sandbox
	demotools-cmd-only import-direction doc-go)
# Package-level entry points of the default registry that tools must not use (Register, in init, is the
# one they need).
readonly REGISTRY_FUNCS='Default|ExecuteTool|Lookup|List|Observe|Configure'

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)/$(basename "${BASH_SOURCE[0]}")"
readonly self

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

# ---------------------------------------------------------------------------------------------------
# The checker, in POSIX awk (mawk is enough).
#
# Inputs, in order: LIST (the .go files, one a line), GOLIST (records from go list), then the .go files.
# Output: one "file<TAB>line<TAB>rule<TAB>message" line per violation (deduplicated).
# shellcheck disable=SC2016 # the awk program is single-quoted on purpose
readonly AWK_PROG='
function under(d, top) { return d == top || index(d, top "/") == 1 }
function dirof(f,    d) { d = f; if (sub(/\/[^\/]*$/, "", d)) return d; return "." }
function baseof(f,    b) { b = f; sub(/^.*\//, "", b); return b }
function relpkg(p) {
	if (p == MOD) return "."
	if (index(p, MOD "/") == 1) return substr(p, length(MOD) + 2)
	return ""
}
function isstd(p,    first) { first = p; sub(/\/.*$/, "", first); return p != "C" && index(first, ".") == 0 }
function ischarm(p) {
	return p == "charm.land" || index(p, "charm.land/") == 1 || index(p, "github.com/charmbracelet/") == 1
}
function isconfined(p) {
	return p == "github.com/landlock-lsm/go-landlock" || index(p, "github.com/landlock-lsm/go-landlock/") == 1 ||
		p == "golang.org/x/net/bpf" || index(p, "golang.org/x/net/bpf/") == 1
}
function cmdtree(d,    a, n) {
	if (!under(d, "cmd")) return ""
	n = split(d, a, "/")
	return n >= 2 ? "cmd/" a[2] : "cmd"
}
function viol(f, l, rule, msg,    k) {
	k = f "\t" l "\t" rule "\t" msg
	if (!(k in seenviol)) { seenviol[k] = 1; print k }
	return 1
}

# demomsg returns why demotools may not import p ("" when it may).
function demomsg(p, r, istest) {
	if (p == "os/exec") return "tools never start processes themselves (os/exec): declare the process effect in Meta and let the tool run confined"
	if (p == "syscall") return "tools never make raw system calls (syscall): declare the effect in Meta and let the sandbox confine the tool"
	if (p == "unsafe") return "tools never import unsafe"
	if (p == "reflect") return istest ? "" : "tools are reflection-free: do not import reflect"
	if (p == "golang.org/x/sys" || index(p, "golang.org/x/sys/") == 1) return "tools never reach the system directly (" p "): declare the effect in Meta and let the tool run confined"
	if (p == "C") return "tools never use cgo (import \"C\")"
	if (r != "") {
		if (under(r, "sandbox")) return "tools never reach around the sandbox: do not import " p "; declare what the tool needs in Meta"
		if (under(r, "tui")) return "tools know nothing of the console: do not import " p
		if (under(r, "tooling") || under(r, "demotools")) return ""
		return "demotools imports only the standard library and tooling, not " p
	}
	if (isstd(p)) return ""
	return "demotools imports only the standard library and tooling, not " p
}

# check applies the import rules to one import p of file f (line l, kind go|test|xtest, package dir d).
function check(f, l, kind, p, d,    istest, r, fired, msg, ct) {
	istest = kind != "go"
	r = relpkg(p)
	fired = 0
	if (under(d, "tooling") || under(d, "sandbox")) {
		if (p == "reflect" && !istest)
			fired += viol(f, l, "no-reflect-charm", "tooling and sandbox are reflection-free: do not import reflect")
		if (ischarm(p))
			fired += viol(f, l, "no-reflect-charm", "tooling and sandbox do not depend on the console'"'"'s charm modules: do not import " p)
	}
	if (under(d, "demotools")) {
		msg = demomsg(p, r, istest)
		if (msg != "") fired += viol(f, l, "demotools-imports", msg)
	}
	if (isconfined(p) && !under(d, "sandbox/confine"))
		fired += viol(f, l, "confine-only", "only sandbox/confine imports " p ": confinement lives in one place")
	if (r == "") return
	if (under(d, "tui") && under(r, "sandbox"))
		fired += viol(f, l, "tui-no-sandbox", "tui sees governance through tooling: do not import " p)
	if (under(r, "demotools") && !under(d, "cmd") && !(istest && under(d, "demotools")))
		fired += viol(f, l, "demotools-cmd-only", "only cmd/ imports " p ": hosts choose their tools with a blank import in main")
	if (fired) return
	if (kind == "xtest" && r == d) return
	if (under(d, "internal")) {
		if (!under(r, "internal"))
			viol(f, l, "import-direction", "internal packages are leaves every package may import: they import no other project package, not " p)
		return
	}
	if (under(r, "internal")) return
	if (under(r, "cmd")) {
		ct = cmdtree(d)
		if (ct == "" || !under(r, ct))
			viol(f, l, "import-direction", "nothing imports " p ": move what is shared into a library package")
		return
	}
	if (under(d, "sandbox")) {
		if (!under(r, "sandbox"))
			viol(f, l, "import-direction", "sandbox knows nothing of the rest of the project: it imports only its own subpackages, not " p)
		return
	}
	if (under(d, "config")) {
		if (!under(r, "config"))
			viol(f, l, "import-direction", "config is plain data: it imports no other project package, not " p)
		return
	}
	if (under(d, "tooling")) {
		if (!under(r, "tooling") && !under(r, "sandbox") && !under(r, "config"))
			viol(f, l, "import-direction", "tooling imports only sandbox and config from this project, not " p)
		return
	}
	if (under(d, "tui")) {
		if (!under(r, "tui") && !under(r, "tooling") && !under(r, "config"))
			viol(f, l, "import-direction", "tui imports only tooling and config from this project, not " p)
		return
	}
}

# lex strips comments from line s and replaces every string literal by " @ " (its text goes to lit[1..nlit]),
# keeping state across lines in st (0 code, 1 block comment, 2 raw string).
function lex(s,    out, i, n, rest, p, c, q, j, buf) {
	nlit = 0
	out = ""
	n = length(s)
	i = 1
	while (i <= n) {
		rest = substr(s, i)
		if (st == 1) {
			p = index(rest, "*/")
			if (p == 0) return out
			i += p + 1; st = 0; out = out " "
			continue
		}
		if (st == 2) {
			p = index(rest, "`")
			if (p == 0) { rawbuf = rawbuf rest "\n"; return out }
			rawbuf = rawbuf substr(rest, 1, p - 1); i += p; st = 0
			lit[++nlit] = rawbuf; out = out " @ "
			continue
		}
		p = match(rest, SPECIAL)
		if (p == 0) return out rest
		out = out substr(rest, 1, p - 1)
		i += p - 1
		c = substr(s, i, 1)
		if (c == "/") {
			q = substr(s, i + 1, 1)
			if (q == "/") return out
			if (q == "*") { st = 1; i += 2; continue }
			out = out c; i++
			continue
		}
		if (c == "`") { st = 2; rawbuf = ""; i++; continue }
		buf = ""
		j = i + 1
		while (j <= n) {
			q = substr(s, j, 1)
			if (q == "\\") { buf = buf substr(s, j, 2); j += 2; continue }
			if (q == c) break
			buf = buf q; j++
		}
		if (c == "\"") { lit[++nlit] = buf; out = out " @ " } else out = out " 0 "
		i = j + 1
	}
	return out
}

function addimport(path, alias,    rel) {
	seenimp[fdir, kind, path] = 1
	check(f, FNR, kind, path, fdir)
	if (rule3 && path == MOD "/tooling") {
		if (alias == ".")
			viol(f, FNR, "demotools-no-default", "do not dot-import tooling in a tool: it hides calls to the default registry")
		else if (alias != "_") {
			if (alias == "") alias = "tooling"
			names[++nnames] = alias
			namere[nnames] = "(^|[^A-Za-z0-9_.])" alias "[ \t]*[.][ \t]*(" REGFUNCS ")([^A-Za-z0-9_]|$)"
		}
	}
}

BEGIN {
	FS = "\t"
	SPECIAL = "[\"'"'"'`/]"
}

FILENAME == LIST {
	d = dirof($0); sub(/^\.\//, "", d); if (d == "") d = "."
	b = baseof($0)
	if (b !~ /_test[.]go$/) pkgdir[d] = 1
	if (b == "doc.go") hasdoc[d] = 1
	next
}

FILENAME == GOLIST {
	rel = relpkg($2)
	if (rel == "") next
	if ($1 == "F") glfiles[rel, $3] = glfiles[rel, $3] $4 "\n"
	else if ($1 == "I") { ngl++; glrel[ngl] = rel; glkind[ngl] = $3; glpath[ngl] = $4 }
	next
}

FNR == 1 {
	f = FILENAME; sub(/^\.\//, "", f)
	fdir = dirof(f)
	isdoc = baseof(f) == "doc.go"
	istestfile = f ~ /_test[.]go$/
	kind = istestfile ? "test" : "go"
	rule3 = !istestfile && under(fdir, "demotools")
	st = 0; phase = 0; istate = 0; alias = ""; prevraw = ""; nnames = 0
}

phase == 2 && !rule3 { next }

{
	code = lex($0)
	if (phase < 2) {
		t = code
		gsub(/[();]/, " & ", t)
		n = split(t, tok, " ")
		li = 0
		for (k = 1; k <= n && phase < 2; k++) {
			w = tok[k]
			if (w == "@") li++
			if (phase == 0) {
				if (w == "package" && k < n) {
					pkgname = tok[k + 1]; k++
					phase = 1
					if (istestfile && pkgname ~ /_test$/) kind = "xtest"
					if (isdoc) {
						docline[fdir] = FNR
						docname[fdir] = pkgname
						docok[fdir] = (prevraw ~ /^[ \t]*\/\// && prevraw !~ /^\/\/go:/ && prevraw !~ /^\/\/ *[+]build/) || prevraw ~ /[*]\/[ \t]*$/
					}
				}
				continue
			}
			if (istate == 0) {
				if (w == "import") istate = 1
				else if (w != ";") phase = 2
			} else if (istate == 1) {
				if (w == "(") { istate = 2; alias = "" }
				else if (w == "@") { addimport(lit[li], alias); alias = ""; istate = 0 }
				else alias = w
			} else {
				if (w == ")") { istate = 0; alias = "" }
				else if (w == "@") { addimport(lit[li], alias); alias = "" }
				else if (w == ";") alias = ""
				else alias = w
			}
		}
	}
	if (rule3) {
		calls = ""
		for (k = 1; k <= nnames; k++) {
			rest = code
			while (match(rest, namere[k])) {
				m = substr(rest, RSTART, RLENGTH)
				rest = substr(rest, RSTART + RLENGTH - 1)
				sub(/^[^A-Za-z0-9_]/, "", m); sub(/[^A-Za-z0-9_]$/, "", m); gsub(/[ \t]/, "", m)
				calls = calls (calls == "" ? "" : ", ") m
			}
		}
		if (calls != "")
			viol(f, FNR, "demotools-no-default", "tools never use the default registry (" calls "): what a tool needs arrives through its Call")
	}
	prevraw = $0
}

END {
	# Imports that only go list saw: find their lines with a plain search of the package files of that
	# kind, else put them on line 1 of the first file.
	for (i = 1; i <= ngl; i++) {
		if ((glrel[i], glkind[i], glpath[i]) in seenimp) continue
		nf = split(glfiles[glrel[i], glkind[i]], gf, "\n")
		found = 0
		for (j = 1; j <= nf; j++) {
			if (gf[j] == "") continue
			ff = glrel[i] == "." ? gf[j] : glrel[i] "/" gf[j]
			ln = 0
			while ((getline line < ff) > 0) {
				ln++
				if (index(line, "\"" glpath[i] "\"") || index(line, "`" glpath[i] "`")) {
					check(ff, ln, glkind[i], glpath[i], glrel[i]); found = 1
				}
			}
			close(ff)
		}
		if (!found && gf[1] != "")
			check(glrel[i] == "." ? gf[1] : glrel[i] "/" gf[1], 1, glkind[i], glpath[i], glrel[i])
	}
	for (d in pkgdir) {
		df = d == "." ? "doc.go" : d "/doc.go"
		if (!(d in hasdoc))
			viol(df, 1, "doc-go", "package directory " d " has no doc.go: add one with the package comment")
		else if ((d in docok) && !docok[d])
			viol(df, docline[d], "doc-go", "doc.go has no package comment: write \"// " (docname[d] == "main" ? "Command " baseof(d) : "Package " docname[d]) " ...\" right above the package clause")
	}
}
'

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

# shellcheck disable=SC2016 # go templates, not shell expansions
run_go_list() { # out err
	local tmpl
	tmpl='{{$p := .ImportPath}}'
	tmpl+='{{range .GoFiles}}F	{{$p}}	go	{{.}}{{"\n"}}{{end}}'
	tmpl+='{{range .CgoFiles}}F	{{$p}}	go	{{.}}{{"\n"}}{{end}}'
	tmpl+='{{range .TestGoFiles}}F	{{$p}}	test	{{.}}{{"\n"}}{{end}}'
	tmpl+='{{range .XTestGoFiles}}F	{{$p}}	xtest	{{.}}{{"\n"}}{{end}}'
	tmpl+='{{range .Imports}}I	{{$p}}	go	{{.}}{{"\n"}}{{end}}'
	tmpl+='{{range .TestImports}}I	{{$p}}	test	{{.}}{{"\n"}}{{end}}'
	tmpl+='{{range .XTestImports}}I	{{$p}}	xtest	{{.}}{{"\n"}}{{end}}'
	if ! command -v go >/dev/null 2>&1; then
		echo "go not found on PATH" >"$2"
		return 1
	fi
	cp go.mod "$work/gate.mod"
	if [[ -f go.sum ]]; then cp go.sum "$work/gate.sum"; fi
	GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOWORK=off \
		go list -e -modfile="$work/gate.mod" -f "$tmpl" ./... >"$1" 2>"$2"
}

gate() {
	local mod files=() nfiles out n
	cd "$root" || die "cannot enter $root"
	[[ -f go.mod ]] || die "no go.mod in $root"
	mod="$(awk '$1 == "module" { gsub(/"/, "", $2); print $2; exit }' go.mod)"
	[[ -n "$mod" ]] || die "no module path in $root/go.mod"

	work="$(mktemp -d "${TMPDIR:-/tmp}/gate.XXXXXX")"
	cleanup_dirs+=("$work")

	list_go_files >"$work/files"
	mapfile -t files <"$work/files"
	nfiles=${#files[@]}

	if ! run_go_list "$work/golist" "$work/golist.err"; then
		printf 'gate: note: go list failed, the source scan decides alone: %s\n' \
			"$(grep -v '^warning:' "$work/golist.err" | head -n 1)" >&2
		: >"$work/golist"
	fi

	out="$(awk -v MOD="$mod" -v LIST="$work/files" -v GOLIST="$work/golist" -v REGFUNCS="$REGISTRY_FUNCS" \
		"$AWK_PROG" "$work/files" "$work/golist" "${files[@]+"${files[@]}"}" |
		LC_ALL=C sort -t '	' -k1,1 -k2,2n -k3,3 |
		awk -F '\t' '{ printf "%s:%s: %s: %s\n", $1, $2, $3, $4 }')"

	if [[ -z "$out" ]]; then
		printf 'gate: ok (%d rules, %d files)\n' "${#RULES[@]}" "$nfiles"
		return 0
	fi
	printf '%s\n' "$out"
	n="$(printf '%s\n' "$out" | wc -l)"
	printf 'gate: %d violation(s) (%d rules, %d files)\n' "$n" "${#RULES[@]}" "$nfiles" >&2
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

				_ "@MOD@/config"
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
	*) return 1 ;;
	esac
}
readonly NCASES=23

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

	for r in "${RULES[@]}"; do
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
	printf 'gate self-test: ok (%d cases, all %d rules fired, %ds)\n' "$((NCASES + 1))" "${#RULES[@]}" "$((SECONDS - start))"
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
