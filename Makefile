# hermes-loop: build, test, demo, bench.
#   make test    fmt check, clippy -D warnings, unit + integration + interop tests
#   make demo    the whole loop on a temporary HERMES_HOME seeded from testdata/
# The Python peer (hermes-agent 0.19.0, for interop tests and side-by-side benchmarks) is
# installed into .venv-peer/ on first use.

CARGO       ?= cargo
PYTHON      ?= python3
PEER_VENV   := .venv-peer
PEER_PY     := $(PEER_VENV)/bin/python
PEER_STAMP  := $(PEER_VENV)/.hermes-agent-0.19.0
HAVE_NEXTEST := $(shell $(CARGO) nextest --version >/dev/null 2>&1 && echo yes)
INTEROP_TESTS := $(patsubst tests/%.rs,%,$(wildcard tests/interop_*.rs))

export HERMES_PEER_PYTHON := $(abspath $(PEER_PY))

.PHONY: all build release test lint fmt-check clippy unit interop bench demo peer tmux pg clean \
	mutants mutants-diff

all: build

build:
	$(CARGO) build --all-targets

release:
	$(CARGO) build --release

## test: everything CI checks, in the order that fails fastest.
test: lint peer tmux pg
ifeq ($(HAVE_NEXTEST),yes)
	$(CARGO) nextest run --no-fail-fast
else
	$(CARGO) test --no-fail-fast
endif

lint: fmt-check clippy

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --all-targets -- -D warnings

unit:
	$(CARGO) test --lib

## interop: only the tests that run the real Python Hermes next to our code.
interop: peer
ifeq ($(HAVE_NEXTEST),yes)
	$(CARGO) nextest run --no-fail-fast -E 'binary(/^interop_/)'
else
	$(CARGO) test --no-fail-fast $(foreach t,$(INTEROP_TESTS),--test $(t))
endif

## tmux: the pseudo-terminal the terminal-session tests run hermes-chat in.
tmux:
	@command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux; } || \
		{ echo "make: tmux is needed for tests/chat_tty.rs (apt-get install tmux)" >&2; exit 2; }

## peer: the Python Hermes we test against, pinned to 0.19.0, installed once.
peer: $(PEER_STAMP)

$(PEER_STAMP):
	rm -rf $(PEER_VENV)
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install --quiet --disable-pip-version-check hermes-agent==0.19.0
	$(PEER_PY) -c "import hermes_cli, tools.skills_guard, hermes_state" 
	touch $@

## pg: the PostgreSQL server the team-store tests start throwaway clusters of (Debian's
## package; its binaries under /usr/lib/postgresql/*/bin). Installed once, when missing.
pg:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; \
	else echo "make pg: install the PostgreSQL server (initdb, pg_ctl) for the team-store tests" >&2; exit 2; fi

## bench: release build, then each area's benchmark script (side by side with the peer).
bench: release peer pg
	./benches/run.sh

## mutants: cargo-mutants over the modules that hold the promises (mutants.toml says which,
## and lists the accepted survivors with their reasons). In place, one mutant at a time: the
## tree's own target/ is reused instead of a second build of every dependency; the source is
## restored after each mutant. mutants-diff: only the mutants in lines changed since the
## merge base with $(MUTANTS_BASE) (a branch's own work). Results in mutants.out/.
MUTANTS_VERSION := 27.1.0
MUTANTS_BIN     := .tools/bin/cargo-mutants
MUTANTS_BASE    ?= main
MUTANTS_FLAGS   := --config mutants.toml --in-place --timeout 60 --no-shuffle
MUTANTS_ARGS    ?=

$(MUTANTS_BIN):
	$(CARGO) install --locked --root .tools --version $(MUTANTS_VERSION) cargo-mutants

mutants: $(MUTANTS_BIN)
	PATH="$(abspath .tools/bin):$$PATH" $(CARGO) mutants $(MUTANTS_FLAGS) $(MUTANTS_ARGS)

mutants-diff: $(MUTANTS_BIN)
	mkdir -p target
	git diff "$$(git merge-base $(MUTANTS_BASE) HEAD)" -- lib > target/mutants.diff
	PATH="$(abspath .tools/bin):$$PATH" $(CARGO) mutants $(MUTANTS_FLAGS) \
		--in-diff target/mutants.diff $(MUTANTS_ARGS)

demo: release
	./pipelines/demo.sh

clean:
	$(CARGO) clean
	rm -rf $(PEER_VENV) bench-out
