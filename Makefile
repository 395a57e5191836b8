# hermes-loop: build, test, demo, bench.
#   make test    fmt check, clippy -D warnings, unit + integration + interop tests
#   make demo    the whole loop on a temporary HERMES_HOME seeded from testdata/
#   make install binaries, man pages and completions under PREFIX (default /usr/local)
# The Python peer (hermes-agent 0.19.0, for interop tests and side-by-side benchmarks) is
# installed into .venv-peer/ on first use.

CARGO       ?= cargo
PYTHON      ?= python3
PEER_VENV   := .venv-peer
PEER_PY     := $(PEER_VENV)/bin/python
PEER_STAMP  := $(PEER_VENV)/.hermes-agent-0.19.0
# The agentskills.io reference validator (`agentskills validate`), for tests/interop_agentskills.rs.
SKILLS_REF_VENV  := .venv-skills-ref
SKILLS_REF_STAMP := $(SKILLS_REF_VENV)/.skills-ref-0.1.1
# The SARIF validator (`sarif-multitool validate`, tests/ci_integrations.rs) and the real
# pre-commit (tests/ci_integrations.rs), each pinned in a project-local folder.
SARIF_TOOL_DIR   := .tools/npm
SARIF_TOOL_STAMP := $(SARIF_TOOL_DIR)/.sarif-multitool-5.7.0
PRE_COMMIT_VENV  := .tools/venv-pre-commit
PRE_COMMIT_STAMP := $(PRE_COMMIT_VENV)/.pre-commit-4.7.0
HAVE_NEXTEST := $(shell $(CARGO) nextest --version >/dev/null 2>&1 && echo yes)
INTEROP_TESTS := $(patsubst tests/%.rs,%,$(wildcard tests/interop_*.rs))

export HERMES_PEER_PYTHON := $(abspath $(PEER_PY))
export HERMES_SKILLS_REF_PYTHON := $(abspath $(SKILLS_REF_VENV)/bin/python)
# The native binary: the npm wrapper (bin.js) hands arguments to a shell unquoted.
export HERMES_SARIF_MULTITOOL := $(abspath $(SARIF_TOOL_DIR)/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool)
export HERMES_PRE_COMMIT := $(abspath $(PRE_COMMIT_VENV)/bin/pre-commit)

.PHONY: all build release test lint fmt-check clippy unit interop bench demo peer skills-ref tmux doc-tools pg jail-tools sarif-tool pre-commit clean install \
	mutants mutants-diff mutants-drivers rule-dfas

all: build

build:
	$(CARGO) build --all-targets

release:
	$(CARGO) build --release

## install: release binaries (debug info split off into bin/.debug/), man pages, completions.
##   make install PREFIX=~/.local      make install DESTDIR=pkg PREFIX=/usr
PREFIX  ?= /usr/local
DESTDIR ?=
install: release
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./pipelines/install.sh target/release

## test: everything CI checks, in the order that fails fastest.
test: lint peer skills-ref tmux doc-tools pg jail-tools sarif-tool pre-commit
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
interop: peer skills-ref
ifeq ($(HAVE_NEXTEST),yes)
	$(CARGO) nextest run --no-fail-fast -E 'binary(/^interop_/)'
else
	$(CARGO) test --no-fail-fast $(foreach t,$(INTEROP_TESTS),--test $(t))
endif

## tmux: the pseudo-terminal the terminal-session tests run hermes-chat in.
tmux:
	@command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux; } || \
		{ echo "make: tmux is needed for tests/chat_tty.rs (apt-get install tmux)" >&2; exit 2; }

## jail-tools: unshare (util-linux) and ip (iproute2) build the namespace jail that
## tests/sandbox.rs runs its attacks in.
jail-tools:
	@command -v unshare >/dev/null && command -v ip >/dev/null || \
		{ apt-get update -qq && apt-get install -y -qq util-linux iproute2; } || \
		{ echo "make: unshare and ip are needed for tests/sandbox.rs (apt-get install util-linux iproute2)" >&2; exit 2; }

## doc-tools: groff (tests/cli_generate.rs renders every man page) and binutils (objcopy
## splits debug info in pipelines/install.sh; objdump checks it).
doc-tools:
	@command -v groff >/dev/null && command -v objcopy >/dev/null || \
		{ apt-get update -qq && apt-get install -y -qq groff-base binutils; } || \
		{ echo "make: groff and binutils are needed (apt-get install groff-base binutils)" >&2; exit 2; }

## peer: the Python Hermes we test against, pinned to 0.19.0, installed once.
peer: $(PEER_STAMP)

$(PEER_STAMP):
	rm -rf $(PEER_VENV)
	$(PYTHON) -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install --quiet --disable-pip-version-check hermes-agent==0.19.0
	$(PEER_PY) -c "import hermes_cli, tools.skills_guard, hermes_state" 
	touch $@

## sarif-tool: Microsoft's SARIF validator from npm (it ships a self-contained linux-x64
## binary: no .NET runtime needed), to check the SARIF logs tests/ci_integrations.rs writes.
sarif-tool: $(SARIF_TOOL_STAMP)

$(SARIF_TOOL_STAMP):
	mkdir -p $(SARIF_TOOL_DIR)
	npm install --silent --no-audit --no-fund --prefix $(SARIF_TOOL_DIR) @microsoft/sarif-multitool@5.7.0
	$(HERMES_SARIF_MULTITOOL) --version >/dev/null
	touch $@

## pre-commit: the real pre-commit, to run .pre-commit-hooks.yaml as users will.
pre-commit: $(PRE_COMMIT_STAMP)

$(PRE_COMMIT_STAMP):
	rm -rf $(PRE_COMMIT_VENV)
	$(PYTHON) -m venv $(PRE_COMMIT_VENV)
	$(PRE_COMMIT_VENV)/bin/pip install --quiet --disable-pip-version-check pre-commit==4.7.0
	$(PRE_COMMIT_VENV)/bin/pre-commit --version >/dev/null
	touch $@

## skills-ref: the format's reference validator, pinned, in its own venv (its StrictYAML
## pin must not meet hermes-agent's dependencies).
skills-ref: $(SKILLS_REF_STAMP)

$(SKILLS_REF_STAMP):
	rm -rf $(SKILLS_REF_VENV)
	$(PYTHON) -m venv $(SKILLS_REF_VENV)
	$(SKILLS_REF_VENV)/bin/pip install --quiet --disable-pip-version-check skills-ref==0.1.1
	$(SKILLS_REF_VENV)/bin/agentskills --help >/dev/null
	touch $@

## pg: the PostgreSQL server the team-store tests start throwaway clusters of (Debian's
## package; its binaries under /usr/lib/postgresql/*/bin). Installed once, when missing, and
## the `postgres` account the clusters run as when root (created when missing).
pg:
	@if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1; then \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq postgresql >/dev/null; \
	else echo "make pg: install the PostgreSQL server (initdb, pg_ctl) for the team-store tests" >&2; exit 2; fi
	@# As root the test clusters run as `postgres` (the server refuses root); an image can ship
	@# the package without the account its install created.
	@if [ "$$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then \
		group=--user-group; getent group postgres >/dev/null && group="-g postgres"; \
		useradd --system $$group --home-dir /var/lib/postgresql --shell /bin/sh postgres; fi

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

## mutants-drivers: hermes-chat's drivers (lib/agent/cli.rs, repl.rs) against the chat
## integration tests (mutants-drivers.toml); a minute or so per mutant. Results in
## mutants.out/ as above. MUTANTS_DIFF=1: only the lines changed since $(MUTANTS_BASE).
mutants-drivers: $(MUTANTS_BIN)
	mkdir -p target
	git diff "$$(git merge-base $(MUTANTS_BASE) HEAD)" -- lib > target/mutants.diff
	PATH="$(abspath .tools/bin):$$PATH" $(CARGO) mutants \
		--config mutants-drivers.toml --in-place --timeout 180 --no-shuffle \
		$(if $(MUTANTS_DIFF),--in-diff target/mutants.diff) $(MUTANTS_ARGS)

demo: release
	./pipelines/demo.sh

## rule-dfas: rebuild lib/guard/rule-dfas.bin and lib/guard/anchors.bin, the scanner's rule
##   DFAs and anchor automaton built ahead of time, after a rule changes (the tests
##   prebuilt_dfas_are_current and prebuilt_anchors_are_current say when). A few seconds;
##   the files are committed.
rule-dfas:
	HERMES_WRITE_RULE_DFAS=1 $(CARGO) test --lib -- --exact \
		guard::engine::tests::prebuilt_dfas_are_current \
		guard::engine::tests::prebuilt_anchors_are_current --nocapture

clean:
	$(CARGO) clean
	rm -rf $(PEER_VENV) $(SKILLS_REF_VENV) bench-out
