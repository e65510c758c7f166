# toolexplorer: `make` lists the targets.

export GOTOOLCHAIN := local

SHELL := bash
.SHELLFLAGS := -euo pipefail -c

GO ?= go
# Arguments for `make run`, e.g. make run ARGS='list --json' (default: none, the console).
ARGS ?=
# Benchmarks to run (a -bench pattern) and fuzzing time.
BENCH ?= .
FUZZTIME ?= 30s
# honnef.co/go/tools release 2026.2.2, which supports Go 1.26.
STATICCHECK_VERSION ?= v0.8.2

.DEFAULT_GOAL := help
.PHONY: help run build test e2e bench lint fuzz gate clean screenshot

help: ## list the targets
	@echo 'usage: make TARGET [ARGS=...] [BENCH=...] [FUZZTIME=...]'
	@awk 'BEGIN { FS = ":.*## " } /^[a-z0-9-]+:.*## / { printf "  %-6s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

run: ## build and run the console on the demo tools and the demo shop's tools files (ARGS are passed on)
	CGO_ENABLED=0 $(GO) run ./cmd/toolexplorer --demo $(ARGS)

build: ## build a static bin/toolexplorer
	CGO_ENABLED=0 $(GO) build -o bin/toolexplorer ./cmd/toolexplorer

test: ## vet, boundary gate and its self-test, then every test with -race (end-to-end tests and MCP peers included)
	@# The MCP peers (Inspector CLI, server-everything) come from npm, pinned in scripts/peers/.
	@if command -v npm >/dev/null 2>&1; then scripts/install-peers.sh || echo 'make test: the MCP peers could not be installed; their tests skip (and fail under CI=true)'; else echo 'make test: no npm; the MCP peer tests skip (and fail under CI=true)'; fi
	$(GO) vet ./...
	scripts/gate.sh
	scripts/gate.sh --self-test
	$(GO) test -race -count=1 -timeout 30m ./...

e2e: ## only the end-to-end tests
	$(GO) test -race -count=1 -run E2E ./cmd/...

# Benchmarks measure the static build that make build ships (confined children start about
# 1 ms faster without cgo).
bench: ## benchmarks (BENCH filters), 6 counts each, saved to bench.out for benchstat
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count 6 ./... | tee bench.out

lint: ## gofmt, go vet (also for macOS and Windows) and staticcheck
	@unformatted="$$(gofmt -l .)"; \
	if [[ -n "$$unformatted" ]]; then echo 'gofmt -l: these files need gofmt -w:'; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Each target fuzzes for FUZZTIME: the whole call, the quick check against the general validator
# on generated schemas and values, the registry's JSON decoder against encoding/json, the fork of
# the JSON Schema library (internal/jsonschema) against its upstream on generated schemas and values. The
# generator's input hardly ever shrinks (a shorter input makes another schema), so minimizing
# is kept short there: at the default of a minute per new input the fuzzer spends most of its
# time on it.
fuzz: ## fuzz ExecuteTool, the quick check, the JSON decoder and the JSON Schema fork, FUZZTIME each
	$(GO) test -run '^$$' -fuzz '^FuzzExecute$$' -fuzztime $(FUZZTIME) ./tooling
	$(GO) test -run '^$$' -fuzz '^FuzzQuickGenerated$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./tooling/internal/schema
	$(GO) test -run '^$$' -fuzz '^FuzzParseJSON$$' -fuzztime $(FUZZTIME) ./tooling/internal/schema
	$(GO) test -run '^$$' -fuzz '^FuzzDifferential$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s ./internal/jsonschema

gate: ## the boundary gate, then its self-test
	scripts/gate.sh
	scripts/gate.sh --self-test

screenshot: ## redraw docs/console.svg, the README's picture of the console (tmux; freeze through the module proxy)
	scripts/screenshot.sh

clean: ## remove build and benchmark outputs
	rm -rf bin bench.out
